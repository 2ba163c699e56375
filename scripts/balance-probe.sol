// SPDX-License-Identifier: MIT
// chaingw's tracking probe (src/reserves/evm/probe-code.ts holds its runtime code, written by
// scripts/compile-probe.mjs): never deployed, given to a scratch account for one eth_call by a state override.
// Calldata: a token's address (one word) and the addresses to read (a word each). Answers one word per
// address: the token's balanceOf(address), or with token 0 the address's native balance. A balanceOf that
// fails or answers less than a word makes the whole call revert (the probe cannot tell then).
pragma solidity ^0.8.20;

contract BalanceProbe {
    fallback() external {
        assembly {
            let token := calldataload(0)
            let n := div(sub(calldatasize(), 32), 32)
            let out := 0x100
            mstore(0, 0x70a0823100000000000000000000000000000000000000000000000000000000)
            for { let i := 0 } lt(i, n) { i := add(i, 1) } {
                let who := calldataload(add(32, mul(i, 32)))
                switch token
                case 0 { mstore(add(out, mul(i, 32)), balance(who)) }
                default {
                    mstore(4, who)
                    if iszero(staticcall(gas(), token, 0, 36, 0x40, 32)) { revert(0, 0) }
                    if lt(returndatasize(), 32) { revert(0, 0) }
                    mstore(add(out, mul(i, 32)), mload(0x40))
                }
            }
            return(out, mul(n, 32))
        }
    }
}

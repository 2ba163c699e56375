/**
 * keccak-256 (Ethereum's, the pre-standard padding 0x01, not SHA3-256's 0x06) for the rows of an exchange's
 * address file: every EVM and TRON row's recovered key is hashed once to its account, 50,000 times in a large
 * file. The same function as @noble/hashes' keccak_256 (test/keccak.test.ts holds it to it), without its
 * objects: the permutation over 50 32-bit locals (each lane's low and high half), unrolled within a round,
 * the state in one array kept for the module. ~4× @noble/hashes' per 64-byte key on Node 20.
 */

/** the 24 rounds' constants, each as its low and high 32 bits */
const RC = Int32Array.from([
  1, 0, 32898, 0, 32906, -2147483648, -2147450880, -2147483648, 32907, 0, -2147483647, 0, -2147450751,
  -2147483648, 32777, -2147483648, 138, 0, 136, 0, -2147450871, 0, -2147483638, 0, -2147450741, 0, 139,
  -2147483648, 32905, -2147483648, 32771, -2147483648, 32770, -2147483648, 128, -2147483648, 32778, 0,
  -2147483638, -2147483648, -2147450751, -2147483648, 32896, -2147483648, -2147483647, 0, -2147450872,
  -2147483648,
]);

/** the sponge's 25 lanes, lane i's low half at 2i, its high half at 2i + 1 */
const S = new Int32Array(50);

/** keccak-f[1600] over S: theta, rho and pi, chi, iota; 24 rounds. */
function permute(): void {
  let a0l = S[0] as number;
  let a0h = S[1] as number;
  let a1l = S[2] as number;
  let a1h = S[3] as number;
  let a2l = S[4] as number;
  let a2h = S[5] as number;
  let a3l = S[6] as number;
  let a3h = S[7] as number;
  let a4l = S[8] as number;
  let a4h = S[9] as number;
  let a5l = S[10] as number;
  let a5h = S[11] as number;
  let a6l = S[12] as number;
  let a6h = S[13] as number;
  let a7l = S[14] as number;
  let a7h = S[15] as number;
  let a8l = S[16] as number;
  let a8h = S[17] as number;
  let a9l = S[18] as number;
  let a9h = S[19] as number;
  let a10l = S[20] as number;
  let a10h = S[21] as number;
  let a11l = S[22] as number;
  let a11h = S[23] as number;
  let a12l = S[24] as number;
  let a12h = S[25] as number;
  let a13l = S[26] as number;
  let a13h = S[27] as number;
  let a14l = S[28] as number;
  let a14h = S[29] as number;
  let a15l = S[30] as number;
  let a15h = S[31] as number;
  let a16l = S[32] as number;
  let a16h = S[33] as number;
  let a17l = S[34] as number;
  let a17h = S[35] as number;
  let a18l = S[36] as number;
  let a18h = S[37] as number;
  let a19l = S[38] as number;
  let a19h = S[39] as number;
  let a20l = S[40] as number;
  let a20h = S[41] as number;
  let a21l = S[42] as number;
  let a21h = S[43] as number;
  let a22l = S[44] as number;
  let a22h = S[45] as number;
  let a23l = S[46] as number;
  let a23h = S[47] as number;
  let a24l = S[48] as number;
  let a24h = S[49] as number;
  for (let r = 0; r < 24; r++) {
    const c0l = a0l ^ a5l ^ a10l ^ a15l ^ a20l;
    const c0h = a0h ^ a5h ^ a10h ^ a15h ^ a20h;
    const c1l = a1l ^ a6l ^ a11l ^ a16l ^ a21l;
    const c1h = a1h ^ a6h ^ a11h ^ a16h ^ a21h;
    const c2l = a2l ^ a7l ^ a12l ^ a17l ^ a22l;
    const c2h = a2h ^ a7h ^ a12h ^ a17h ^ a22h;
    const c3l = a3l ^ a8l ^ a13l ^ a18l ^ a23l;
    const c3h = a3h ^ a8h ^ a13h ^ a18h ^ a23h;
    const c4l = a4l ^ a9l ^ a14l ^ a19l ^ a24l;
    const c4h = a4h ^ a9h ^ a14h ^ a19h ^ a24h;
    const d0l = c4l ^ ((c1l << 1) | (c1h >>> 31));
    const d0h = c4h ^ ((c1h << 1) | (c1l >>> 31));
    const d1l = c0l ^ ((c2l << 1) | (c2h >>> 31));
    const d1h = c0h ^ ((c2h << 1) | (c2l >>> 31));
    const d2l = c1l ^ ((c3l << 1) | (c3h >>> 31));
    const d2h = c1h ^ ((c3h << 1) | (c3l >>> 31));
    const d3l = c2l ^ ((c4l << 1) | (c4h >>> 31));
    const d3h = c2h ^ ((c4h << 1) | (c4l >>> 31));
    const d4l = c3l ^ ((c0l << 1) | (c0h >>> 31));
    const d4h = c3h ^ ((c0h << 1) | (c0l >>> 31));
    const t0l = a0l ^ d0l;
    const t0h = a0h ^ d0h;
    const t5l = a5l ^ d0l;
    const t5h = a5h ^ d0h;
    const t10l = a10l ^ d0l;
    const t10h = a10h ^ d0h;
    const t15l = a15l ^ d0l;
    const t15h = a15h ^ d0h;
    const t20l = a20l ^ d0l;
    const t20h = a20h ^ d0h;
    const t1l = a1l ^ d1l;
    const t1h = a1h ^ d1h;
    const t6l = a6l ^ d1l;
    const t6h = a6h ^ d1h;
    const t11l = a11l ^ d1l;
    const t11h = a11h ^ d1h;
    const t16l = a16l ^ d1l;
    const t16h = a16h ^ d1h;
    const t21l = a21l ^ d1l;
    const t21h = a21h ^ d1h;
    const t2l = a2l ^ d2l;
    const t2h = a2h ^ d2h;
    const t7l = a7l ^ d2l;
    const t7h = a7h ^ d2h;
    const t12l = a12l ^ d2l;
    const t12h = a12h ^ d2h;
    const t17l = a17l ^ d2l;
    const t17h = a17h ^ d2h;
    const t22l = a22l ^ d2l;
    const t22h = a22h ^ d2h;
    const t3l = a3l ^ d3l;
    const t3h = a3h ^ d3h;
    const t8l = a8l ^ d3l;
    const t8h = a8h ^ d3h;
    const t13l = a13l ^ d3l;
    const t13h = a13h ^ d3h;
    const t18l = a18l ^ d3l;
    const t18h = a18h ^ d3h;
    const t23l = a23l ^ d3l;
    const t23h = a23h ^ d3h;
    const t4l = a4l ^ d4l;
    const t4h = a4h ^ d4h;
    const t9l = a9l ^ d4l;
    const t9h = a9h ^ d4h;
    const t14l = a14l ^ d4l;
    const t14h = a14h ^ d4h;
    const t19l = a19l ^ d4l;
    const t19h = a19h ^ d4h;
    const t24l = a24l ^ d4l;
    const t24h = a24h ^ d4h;
    const b0l = t0l;
    const b0h = t0h;
    const b16l = (t5h << 4) | (t5l >>> 28);
    const b16h = (t5l << 4) | (t5h >>> 28);
    const b7l = (t10l << 3) | (t10h >>> 29);
    const b7h = (t10h << 3) | (t10l >>> 29);
    const b23l = (t15h << 9) | (t15l >>> 23);
    const b23h = (t15l << 9) | (t15h >>> 23);
    const b14l = (t20l << 18) | (t20h >>> 14);
    const b14h = (t20h << 18) | (t20l >>> 14);
    const b10l = (t1l << 1) | (t1h >>> 31);
    const b10h = (t1h << 1) | (t1l >>> 31);
    const b1l = (t6h << 12) | (t6l >>> 20);
    const b1h = (t6l << 12) | (t6h >>> 20);
    const b17l = (t11l << 10) | (t11h >>> 22);
    const b17h = (t11h << 10) | (t11l >>> 22);
    const b8l = (t16h << 13) | (t16l >>> 19);
    const b8h = (t16l << 13) | (t16h >>> 19);
    const b24l = (t21l << 2) | (t21h >>> 30);
    const b24h = (t21h << 2) | (t21l >>> 30);
    const b20l = (t2h << 30) | (t2l >>> 2);
    const b20h = (t2l << 30) | (t2h >>> 2);
    const b11l = (t7l << 6) | (t7h >>> 26);
    const b11h = (t7h << 6) | (t7l >>> 26);
    const b2l = (t12h << 11) | (t12l >>> 21);
    const b2h = (t12l << 11) | (t12h >>> 21);
    const b18l = (t17l << 15) | (t17h >>> 17);
    const b18h = (t17h << 15) | (t17l >>> 17);
    const b9l = (t22h << 29) | (t22l >>> 3);
    const b9h = (t22l << 29) | (t22h >>> 3);
    const b5l = (t3l << 28) | (t3h >>> 4);
    const b5h = (t3h << 28) | (t3l >>> 4);
    const b21l = (t8h << 23) | (t8l >>> 9);
    const b21h = (t8l << 23) | (t8h >>> 9);
    const b12l = (t13l << 25) | (t13h >>> 7);
    const b12h = (t13h << 25) | (t13l >>> 7);
    const b3l = (t18l << 21) | (t18h >>> 11);
    const b3h = (t18h << 21) | (t18l >>> 11);
    const b19l = (t23h << 24) | (t23l >>> 8);
    const b19h = (t23l << 24) | (t23h >>> 8);
    const b15l = (t4l << 27) | (t4h >>> 5);
    const b15h = (t4h << 27) | (t4l >>> 5);
    const b6l = (t9l << 20) | (t9h >>> 12);
    const b6h = (t9h << 20) | (t9l >>> 12);
    const b22l = (t14h << 7) | (t14l >>> 25);
    const b22h = (t14l << 7) | (t14h >>> 25);
    const b13l = (t19l << 8) | (t19h >>> 24);
    const b13h = (t19h << 8) | (t19l >>> 24);
    const b4l = (t24l << 14) | (t24h >>> 18);
    const b4h = (t24h << 14) | (t24l >>> 18);
    a0l = b0l ^ (~b1l & b2l);
    a0h = b0h ^ (~b1h & b2h);
    a1l = b1l ^ (~b2l & b3l);
    a1h = b1h ^ (~b2h & b3h);
    a2l = b2l ^ (~b3l & b4l);
    a2h = b2h ^ (~b3h & b4h);
    a3l = b3l ^ (~b4l & b0l);
    a3h = b3h ^ (~b4h & b0h);
    a4l = b4l ^ (~b0l & b1l);
    a4h = b4h ^ (~b0h & b1h);
    a5l = b5l ^ (~b6l & b7l);
    a5h = b5h ^ (~b6h & b7h);
    a6l = b6l ^ (~b7l & b8l);
    a6h = b6h ^ (~b7h & b8h);
    a7l = b7l ^ (~b8l & b9l);
    a7h = b7h ^ (~b8h & b9h);
    a8l = b8l ^ (~b9l & b5l);
    a8h = b8h ^ (~b9h & b5h);
    a9l = b9l ^ (~b5l & b6l);
    a9h = b9h ^ (~b5h & b6h);
    a10l = b10l ^ (~b11l & b12l);
    a10h = b10h ^ (~b11h & b12h);
    a11l = b11l ^ (~b12l & b13l);
    a11h = b11h ^ (~b12h & b13h);
    a12l = b12l ^ (~b13l & b14l);
    a12h = b12h ^ (~b13h & b14h);
    a13l = b13l ^ (~b14l & b10l);
    a13h = b13h ^ (~b14h & b10h);
    a14l = b14l ^ (~b10l & b11l);
    a14h = b14h ^ (~b10h & b11h);
    a15l = b15l ^ (~b16l & b17l);
    a15h = b15h ^ (~b16h & b17h);
    a16l = b16l ^ (~b17l & b18l);
    a16h = b16h ^ (~b17h & b18h);
    a17l = b17l ^ (~b18l & b19l);
    a17h = b17h ^ (~b18h & b19h);
    a18l = b18l ^ (~b19l & b15l);
    a18h = b18h ^ (~b19h & b15h);
    a19l = b19l ^ (~b15l & b16l);
    a19h = b19h ^ (~b15h & b16h);
    a20l = b20l ^ (~b21l & b22l);
    a20h = b20h ^ (~b21h & b22h);
    a21l = b21l ^ (~b22l & b23l);
    a21h = b21h ^ (~b22h & b23h);
    a22l = b22l ^ (~b23l & b24l);
    a22h = b22h ^ (~b23h & b24h);
    a23l = b23l ^ (~b24l & b20l);
    a23h = b23h ^ (~b24h & b20h);
    a24l = b24l ^ (~b20l & b21l);
    a24h = b24h ^ (~b20h & b21h);
    a0l ^= RC[2 * r];
    a0h ^= RC[2 * r + 1];
  }
  S[0] = a0l;
  S[1] = a0h;
  S[2] = a1l;
  S[3] = a1h;
  S[4] = a2l;
  S[5] = a2h;
  S[6] = a3l;
  S[7] = a3h;
  S[8] = a4l;
  S[9] = a4h;
  S[10] = a5l;
  S[11] = a5h;
  S[12] = a6l;
  S[13] = a6h;
  S[14] = a7l;
  S[15] = a7h;
  S[16] = a8l;
  S[17] = a8h;
  S[18] = a9l;
  S[19] = a9h;
  S[20] = a10l;
  S[21] = a10h;
  S[22] = a11l;
  S[23] = a11h;
  S[24] = a12l;
  S[25] = a12h;
  S[26] = a13l;
  S[27] = a13h;
  S[28] = a14l;
  S[29] = a14h;
  S[30] = a15l;
  S[31] = a15h;
  S[32] = a16l;
  S[33] = a16h;
  S[34] = a17l;
  S[35] = a17h;
  S[36] = a18l;
  S[37] = a18h;
  S[38] = a19l;
  S[39] = a19h;
  S[40] = a20l;
  S[41] = a20h;
  S[42] = a21l;
  S[43] = a21h;
  S[44] = a22l;
  S[45] = a22h;
  S[46] = a23l;
  S[47] = a23h;
  S[48] = a24l;
  S[49] = a24h;
}

/** rate of keccak-256: 136 bytes a block */
const RATE = 136;

/** data's bytes xored into S from `at` (at most a block), as little-endian lanes */
function absorb(data: Uint8Array, at: number, n: number): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const k = at + i;
    S[i >> 2] ^=
      (data[k] as number) |
      ((data[k + 1] as number) << 8) |
      ((data[k + 2] as number) << 16) |
      ((data[k + 3] as number) << 24);
  }
  for (; i < n; i++) S[i >> 2] ^= (data[at + i] as number) << ((i & 3) << 3);
}

/** S after data (from `from`, `length` bytes) was absorbed with keccak's padding and permuted */
function sponge(data: Uint8Array, from: number, length: number): void {
  S.fill(0);
  let at = from;
  const end = from + length;
  for (; end - at >= RATE; at += RATE) {
    absorb(data, at, RATE);
    permute();
  }
  const n = end - at;
  absorb(data, at, n);
  S[n >> 2] ^= 1 << ((n & 3) << 3);
  S[(RATE - 1) >> 2] ^= 0x80 << 24;
  permute();
}

/** byte `i` (0-31) of the digest in S */
const byteOf = (i: number): number => ((S[i >> 2] as number) >>> ((i & 3) << 3)) & 0xff;

/** keccak256 of `data` (any length): its 32 bytes. */
export function keccak256(data: Uint8Array): Uint8Array {
  sponge(data, 0, data.length);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = byteOf(i);
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * The account of an uncompressed public key (04 ‖ X ‖ Y, 65 bytes): the last 20 bytes of keccak256(X ‖ Y),
 * as 40 lowercase hex digits, no 0x.
 */
export function accountHexOfKey(pub: Uint8Array): string {
  sponge(pub, 1, 64);
  let hex = "";
  for (let i = 12; i < 32; i++) hex += HEX[byteOf(i)] as string;
  return hex;
}

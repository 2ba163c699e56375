export async function reservesReport(..._a: unknown[]) {}

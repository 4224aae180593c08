export default async function globalTeardown(): Promise<void> {
  const drop = (globalThis as Record<string, unknown>).__dropTestDb as (() => Promise<void>) | undefined;
  if (drop) await drop();
}

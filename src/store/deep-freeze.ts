// Records shared between readers (a cached row, a room carried by many notifications) are frozen,
// so no reader can change what the others see.

/** Freezes a parsed record and every object in it. */
export function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) deepFreeze(v);
  return Object.freeze(o);
}

// Lists in messages stay short whatever the input: a plan of 400,000 lines must not make a 3 MB message.

/** How many items a message lists before summing up the rest. */
const LISTED = 10;

/**
 * Joins the first few items, then says how many more there are.
 *
 * @example
 * ```ts
 * listSome([1, 2, 3]); // '1, 2, 3'
 * listSome(Array.from({ length: 400_000 }, (_, i) => i)); // '0, 1, …, 9 and 399990 more'
 * ```
 */
export function listSome(items: readonly (string | number)[]): string {
  if (items.length <= LISTED) return items.join(', ');
  return `${items.slice(0, LISTED).join(', ')} and ${items.length - LISTED} more`;
}

/**
 * What an imported row must satisfy beyond its own fields (docs/decisions.md, Import): its id is
 * new, and a reply's parent exists (earlier in the file or on the board) and is a root object.
 * Null when the row may go in; otherwise why not.
 */
export function importRowProblem(row: { id: string; parentId: string | null }, found: { idTaken: boolean; parent: { isRoot: boolean } | null }): string | null {
  if (found.idTaken) return `an object with id ${row.id} already exists`;
  if (row.parentId === null) return null;
  if (!found.parent) return `parent ${row.parentId} does not exist (parents must come before their replies)`;
  if (!found.parent.isRoot) return `parent ${row.parentId} is itself a reply`;
  return null;
}

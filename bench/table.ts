export type Column<T> = [header: string, cell: (row: T) => string, align: 'left' | 'right'];

/** Lines of a plain-text table, each column as wide as its widest cell. */
export function formatTable<T>(columns: Column<T>[], rows: T[]): string[] {
  const cells = [columns.map(([header]) => header), ...rows.map((row) => columns.map(([, cell]) => cell(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells.map((line) =>
    line
      .map((text, i) => (columns[i]![2] === 'left' ? text.padEnd(widths[i]!) : text.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * A CSV file (RFC 4180) as rows of cells, parsed as a spreadsheet would: a quoted cell may hold
 * commas, doubled quotes and line breaks; lines end in CRLF. A file not ending in CRLF, or a quote
 * in the middle of an unquoted cell, fails: the dashboard writes neither.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let at = 0;
  while (at < text.length) {
    let cell = '';
    if (text[at] === '"') {
      at++;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote === -1) throw new Error('a quoted cell is never closed');
        cell += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') break;
        cell += '"';
        at++;
      }
    } else {
      const end = text.slice(at).search(/[,\r]/);
      cell = end === -1 ? text.slice(at) : text.slice(at, at + end);
      if (cell.includes('"')) throw new Error(`a quote inside an unquoted cell: ${cell}`);
      at = end === -1 ? text.length : at + end;
    }
    row.push(cell);
    if (text[at] === ',') at++;
    else if (text.startsWith('\r\n', at)) {
      rows.push(row);
      row = [];
      at += 2;
    } else throw new Error(`a cell ends with ${JSON.stringify(text.slice(at, at + 10))}, not a comma or CRLF`);
  }
  if (row.length > 0) throw new Error('the last line does not end in CRLF');
  return rows;
}

/** The rows after the header as records keyed by the header's names. */
export function csvRecords(text: string): { header: string[]; records: Array<Record<string, string>> } {
  const [header = [], ...rows] = parseCsv(text);
  return { header, records: rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i] ?? '']))) };
}

// The ratio rows of a bench run as an SVG bar chart (bench/results/latest.svg), written by hand: one group per row,
// a bar for the ratio to raw node:http and, where the row has one, a bar for the ratio to the bare NestJS route.

const WIDTH = 960;
const LABEL = 440;
const BAR = 12;
const GROUP = 2 * BAR + 12;
const TOP = 56;

const escape = (text) =>
  String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** `results` are the rows of latest.json; rows without any ratio (renewals, deliveries) are left out. */
export function ratioChart(results, summary) {
  const rows = results.filter((row) => typeof row.ratio === 'number' || typeof row.ratioToBare === 'number');
  const top = Math.max(1, ...rows.flatMap((row) => [row.ratio ?? 0, row.ratioToBare ?? 0]));
  const scale = (WIDTH - LABEL - 60) / top;
  const height = TOP + rows.length * GROUP + 40;
  const x = (value) => LABEL + value * scale;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="12" y="20" font-size="14" font-weight="bold">Tollgate bench: each row's rate as a ratio of its reference (higher is better)</text>`,
    `<text x="12" y="38" fill="#555">${escape(`${summary.at}, Node.js ${summary.node}, ${summary.cores} cores, ${summary.generator}`)}</text>`,
    `<rect x="${WIDTH - 330}" y="28" width="10" height="10" fill="#2b6cb0"/><text x="${WIDTH - 315}" y="37">to raw node:http</text>`,
    `<rect x="${WIDTH - 200}" y="28" width="10" height="10" fill="#dd8a2b"/><text x="${WIDTH - 185}" y="37">to the bare NestJS route</text>`,
  ];
  for (const tick of [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4].filter((t) => t <= top)) {
    parts.push(
      `<line x1="${x(tick)}" y1="${TOP - 6}" x2="${x(tick)}" y2="${height - 30}" stroke="${tick === 1 ? '#999' : '#e2e2e2'}"/>`,
      `<text x="${x(tick)}" y="${height - 16}" text-anchor="middle" fill="#555">${tick}</text>`,
    );
  }
  rows.forEach((row, index) => {
    const y = TOP + index * GROUP;
    // The references behind passport differ only at the end of their long names.
    const short = row.name
      .replace(/^reference: the bare route and log line behind /, 'reference behind ')
      .replace(', as the service does', '');
    const name = short.length > 60 ? `${short.slice(0, 59)}…` : short;
    parts.push(
      `<text x="${LABEL - 8}" y="${y + BAR + 4}" text-anchor="end">${escape(name)}${row.unreliable ? ' *' : ''}</text>`,
    );
    [
      [row.ratio, '#2b6cb0', 0],
      [row.ratioToBare, '#dd8a2b', BAR],
    ].forEach(([value, colour, offset]) => {
      if (typeof value !== 'number') return;
      parts.push(
        `<rect x="${LABEL}" y="${y + offset}" width="${Math.max(1, value * scale).toFixed(1)}" height="${BAR - 1}" fill="${colour}"/>`,
        `<text x="${x(value) + 4}" y="${y + offset + BAR - 2}" fill="#333">${value}</text>`,
      );
    });
  });
  parts.push(
    `<text x="12" y="${height - 4}" fill="#555">* the reference moved more than the noise limit between rounds: read that ratio as unreliable</text>`,
    '</svg>',
  );
  return parts.join('\n') + '\n';
}

import qrcode from 'qrcode-generator';
import { type Html, html } from '../html.ts';

/** Light modules around the code, as the QR specification asks, so a camera finds its edges. */
const QUIET_ZONE = 4;

/**
 * `text` as a QR code, drawn server-side as inline SVG: one path of unit squares, without
 * style attributes (the CSP allows none) or script, sized by console.css (`.qr svg`).
 * Error correction M: what authenticator apps expect of a key URI's code.
 */
export function qrSvg(text: string, label: string): Html {
  const code = qrcode(0, 'M');
  code.addData(text);
  code.make();
  const modules = code.getModuleCount();
  const squares: string[] = [];
  for (let row = 0; row < modules; row++) {
    for (let column = 0; column < modules; column++) {
      if (code.isDark(row, column)) squares.push(`M${column + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`);
    }
  }
  const size = modules + QUIET_ZONE * 2;
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" role="img" aria-label="${label}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${squares.join('')}"/></svg>`;
}

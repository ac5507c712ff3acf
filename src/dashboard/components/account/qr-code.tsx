import { renderSVG } from 'uqr';

/**
 * A QR code of `text` for an authenticator app to scan: uqr's SVG (attributes only, no style) as an image, which
 * the page's Content-Security-Policy allows (`img-src data:`) and no markup of it enters the page.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const svg = renderSVG(text, { border: 2 });
  return <img class="qr-code" src={`data:image/svg+xml,${encodeURIComponent(svg)}`} alt={label} width={200} height={200} />;
}

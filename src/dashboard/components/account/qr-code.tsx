import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';

/**
 * A QR code of `text` for an authenticator app to scan: uqr's SVG (attributes only, no style) as an image, which
 * the page's Content-Security-Policy allows (`img-src data:`), so no markup of it enters the page. uqr is loaded
 * only here, when someone turns two factors on: the first screen's script does not carry it.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const src = useSignal<string | null>(null);
  useEffect(() => {
    let current = true;
    void import('uqr').then(({ renderSVG }) => {
      if (current) src.value = `data:image/svg+xml,${encodeURIComponent(renderSVG(text, { border: 2 }))}`;
    });
    return () => void (current = false);
  }, [text]);
  if (!src.value) return <span class="qr-code" role="img" aria-label={`${label} (loading)`} />;
  return <img class="qr-code" src={src.value} alt={label} width={200} height={200} />;
}

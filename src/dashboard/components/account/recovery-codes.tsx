import { copyText, downloadText } from '../../copy-text.js';

/** The ten recovery codes, shown once: each signs in once instead of a code of the app. */
export function RecoveryCodes({ codes, done }: { codes: string[]; done: () => void }) {
  const text = `Slipway recovery codes (each works once)\n\n${codes.join('\n')}\n`;
  return (
    <div class="secret recovery" role="status">
      <p>
        <strong>Two factors are on.</strong> Keep these recovery codes somewhere safe, shown this once: each signs you in once if your authenticator app is lost.
      </p>
      <ol class="recovery-codes" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <p class="link-row">
        <button type="button" onClick={() => void copyText(text, 'Recovery codes')}>
          Copy
        </button>
        <button type="button" onClick={() => downloadText(text, 'slipway-recovery-codes.txt')}>
          Download as a text file
        </button>
        <button type="button" class="btn-ghost" onClick={done}>
          I have kept them
        </button>
      </p>
    </div>
  );
}

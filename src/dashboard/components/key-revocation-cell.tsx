import { DangerButton } from './danger-button.js';
import { RelativeTime } from './ui/relative-time.js';

/** A key's last cell in a list of keys: when it was revoked, or the button that revokes it. */
export function KeyRevocationCell({ name, revokedAt, revoke }: { name: string; revokedAt: string | null; revoke: () => void }) {
  return (
    <td>
      {revokedAt ? (
        <>
          revoked <RelativeTime at={revokedAt} />
        </>
      ) : (
        <DangerButton label="Revoke" what={name} onClick={revoke} />
      )}
    </td>
  );
}

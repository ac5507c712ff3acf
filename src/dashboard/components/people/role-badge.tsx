import { Badge, type Tone } from '../ui/badge.js';

const TONES: Record<string, Tone> = { owner: 'info', admin: 'warning', member: 'neutral', deployer: 'neutral', viewer: 'neutral' };

/** An installation or project role as a pill: an owner and an admin stand out from a member. */
export function RoleBadge({ role }: { role: string }) {
  return <Badge status={role} tone={TONES[role] ?? 'neutral'} />;
}

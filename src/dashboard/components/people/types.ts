import type { GetAnswer } from '../../api.js';

export type Person = GetAnswer<'/api/users'>['users'][number];
export type Invitation = GetAnswer<'/api/invitations'>['invitations'][number];
export interface ProjectName {
  id: string;
  name: string;
}

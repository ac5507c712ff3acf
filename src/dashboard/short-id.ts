const UUID = /\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** Text with each UUID cut to its first 8 characters (`service-84075e0f…`): enough to tell ids apart by eye. */
export const shortIds = (text: string): string => text.replace(UUID, '$1…');

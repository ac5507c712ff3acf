/**
 * tap gives every Node process a test starts its process-info hook (an ESM loader on a thread of its own), which
 * only coverage reads, and this suite turns coverage off: a CLI run took 0.9 s with the hook and 0.25 s without.
 * Imported for its effect by the helpers that start Node children (the CLI, `serve`, git's hooks).
 */
const options = process.env.NODE_OPTIONS?.split(/\s+/).filter((o) => o && !o.includes('@tapjs/processinfo'));
if (options?.length) process.env.NODE_OPTIONS = options.join(' ');
else delete process.env.NODE_OPTIONS;

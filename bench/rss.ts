import { readFileSync } from 'node:fs';

/** A process's resident memory now, in MB. */
export const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

import { toast } from './components/ui/toast.js';

/** Puts `text` on the clipboard and says so; where the browser refuses, says to select it instead. */
export async function copyText(text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast(`${what} copied.`);
  } catch {
    toast(`The browser did not let the page copy: select the ${what.toLowerCase()} and copy it.`, 'error');
  }
}

/** Offers `text` as a file to save, named `name`. */
export function downloadText(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

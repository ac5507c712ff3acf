import { signal } from '@preact/signals';

/**
 * Whether the page is on screen. A browser gives one server at most six HTTP/1.1 connections, shared by every
 * tab (and by pages kept in the back/forward cache): streams of a hidden page are closed so that the visible
 * one is never left waiting, and opened again, catching up, when it shows.
 */
export const pageVisible = signal(document.visibilityState === 'visible');

const update = () => (pageVisible.value = document.visibilityState === 'visible');
document.addEventListener('visibilitychange', update);
window.addEventListener('pagehide', () => (pageVisible.value = false));
window.addEventListener('pageshow', update);

import t from 'tap';
import { logLineHtml } from '../../src/dashboard/log-line-html.js';

t.test('a log line becomes HTML with its colours as classes and nothing of it as markup', async (t) => {
  t.equal(logLineHtml('\u001b[31mfailed\u001b[0m ok'), '<span class="ansi-red-fg">failed</span> ok');
  t.equal(logLineHtml('<img src=x onerror=alert(1)> & "q"'), '&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;');
  const link = (url: string) => `\u001b]8;;${url}\u0007here\u001b]8;;\u0007`;
  t.match(logLineHtml(link('https://example.com/docs')), /<a href="https:\/\/example.com\/docs"[^>]*>here<\/a>/, 'an https link is a link');
  t.notMatch(logLineHtml(link('javascript:alert(1)')), /<a /, 'a javascript: link is not');
  t.notMatch(logLineHtml(link('https://x.example/"><script>')), /<script>/, 'nor can a link break out of its attribute');
});

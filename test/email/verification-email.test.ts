import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, verificationEmail } from '../../src/email/verification-email.ts';

describe('Verification email', () => {
  const now = Date.UTC(2026, 10, 20, 14, 3, 0);
  const email = verificationEmail({ senderName: 'Acme "Support" <script>', code: '004211', expiresAt: now + 600_000, now });

  it('names the sender in the subject and keeps the code out of it', () => {
    assert.equal(email.subject, 'Your Acme "Support" <script> verification code');
    assert.ok(!email.subject.includes('004211'));
  });

  it('says the code, its lifetime and its end in plain text', () => {
    assert.match(email.text, /Your verification code is: 004211\n/);
    assert.match(email.text, /valid for 10 minutes \(until 2026-11-20 14:13 UTC\)/);
  });

  it('escapes everything it puts into HTML', () => {
    assert.ok(!email.html.includes('<script>'));
    assert.match(email.html, /Acme &quot;Support&quot; &lt;script&gt; asked/);
    assert.match(email.html, /<strong>004211<\/strong>/);
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});

// The console's only script: progressive enhancement. Every page works as plain forms except the
// WebAuthn ceremonies, which need the browser's API; served from 'self' under a CSP without
// inline script, so nothing here is generated per page (values come from data- attributes).

document.documentElement.classList.add('js');

/** POST JSON to the console with the page's CSRF token; the API's error envelope on failure. */
async function postJson(url, body, csrf) {
  const response = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = data.errors?.map((e) => e.message).join(' ') || `The console answered ${response.status}.`;
    throw new Error(message);
  }
  return data;
}

function showError(box, error) {
  if (!box) return;
  const cancelled = error?.name === 'NotAllowedError' || error?.name === 'AbortError';
  box.textContent = cancelled ? 'The passkey request was cancelled or timed out. Try again.' : String(error?.message ?? error);
  box.hidden = false;
  box.tabIndex = -1;
  box.focus();
}

function passkeySignIn() {
  const button = document.getElementById('passkey-sign-in');
  const form = document.getElementById('sign-in');
  if (!button || !form || !window.SimpleWebAuthnBrowser) return;
  button.addEventListener('click', async () => {
    const errorBox = document.getElementById('passkey-error');
    if (errorBox) errorBox.hidden = true;
    const organization = form.elements.organization.value;
    const email = form.elements.email.value;
    const csrf = form.dataset.csrf;
    button.disabled = true;
    try {
      const ceremony = await postJson('/console/sign-in/passkey/options', { organization, email }, csrf);
      const response = await window.SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: ceremony.options });
      const done = await postJson('/console/sign-in/passkey', { organization, challenge_id: ceremony.challenge_id, response }, csrf);
      if (typeof done.location !== 'string') throw new Error('The console did not say where to go next; reload the page.');
      window.location.assign(done.location);
    } catch (error) {
      showError(errorBox, error);
    } finally {
      button.disabled = false;
    }
  });
}

function passkeyRegistration() {
  const form = document.getElementById('passkey-register');
  if (!form || !window.SimpleWebAuthnBrowser) return;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const errorBox = document.getElementById('passkey-error');
    if (errorBox) errorBox.hidden = true;
    const csrf = form.dataset.csrf;
    // The API takes a label of 1 to 100 characters, or none: an empty field is none.
    const label = form.elements.label.value.trim();
    const button = form.querySelector('button');
    button.disabled = true;
    try {
      const ceremony = await postJson('/console/security/passkeys/options', {}, csrf);
      const response = await window.SimpleWebAuthnBrowser.startRegistration({ optionsJSON: ceremony.options });
      const done = await postJson('/console/security/passkeys', { challenge_id: ceremony.challenge_id, response, ...(label ? { label } : {}) }, csrf);
      if (typeof done.location !== 'string') throw new Error('The console did not say where to go next; reload the page.');
      window.location.assign(done.location);
    } catch (error) {
      showError(errorBox, error);
    } finally {
      button.disabled = false;
    }
  });
}

/** Forms that delete or replace something ask first (data-confirm holds the question). */
function confirmations() {
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
}

/** After a failed submit, focus the error summary so keyboard and screen-reader users land on it. */
function focusErrors() {
  document.getElementById('form-error')?.focus();
}

/** Copy buttons beside one-time secrets (data-copy names the element whose text is copied); hidden without script. */
function copyButtons() {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(button.dataset.copy);
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      await navigator.clipboard.writeText(source.textContent);
      button.textContent = 'Copied';
    });
  }
}

passkeySignIn();
passkeyRegistration();
confirmations();
focusErrors();
copyButtons();

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

/**
 * One WebAuthn ceremony from a button: options from the console, the browser's ceremony, the
 * answer back, then on to the page the console names. Failures show in #passkey-error.
 */
async function ceremony(button, { optionsUrl, optionsBody, run, finishUrl, finishBody, csrf }) {
  const errorBox = document.getElementById('passkey-error');
  if (errorBox) errorBox.hidden = true;
  button.disabled = true;
  try {
    const started = await postJson(optionsUrl, optionsBody, csrf);
    const response = await run({ optionsJSON: started.options });
    const done = await postJson(finishUrl, { challenge_id: started.challenge_id, response, ...finishBody }, csrf);
    if (typeof done.location !== 'string') throw new Error('The console did not say where to go next; reload the page.');
    window.location.assign(done.location);
  } catch (error) {
    showError(errorBox, error);
  } finally {
    button.disabled = false;
  }
}

function passkeySignIn() {
  const button = document.getElementById('passkey-sign-in');
  const form = document.getElementById('sign-in');
  if (!button || !form || !window.SimpleWebAuthnBrowser) return;
  button.addEventListener('click', () => {
    const organization = form.elements.organization.value;
    return ceremony(button, {
      optionsUrl: '/console/sign-in/passkey/options',
      optionsBody: { organization, email: form.elements.email.value },
      run: window.SimpleWebAuthnBrowser.startAuthentication,
      finishUrl: '/console/sign-in/passkey',
      finishBody: { organization },
      csrf: form.dataset.csrf,
    });
  });
}

/**
 * Passkey buttons for a person the console already knows (the second step of a sign-in, the
 * confirmation of a sensitive action): data-options-url and data-finish-url name the two calls,
 * data-finish-next the page to come back to, if any.
 */
function passkeyButtons() {
  if (!window.SimpleWebAuthnBrowser) return;
  for (const button of document.querySelectorAll('button[data-passkey-login]')) {
    button.addEventListener('click', () =>
      ceremony(button, {
        optionsUrl: button.dataset.optionsUrl,
        optionsBody: {},
        run: window.SimpleWebAuthnBrowser.startAuthentication,
        finishUrl: button.dataset.finishUrl,
        finishBody: button.dataset.finishNext ? { next: button.dataset.finishNext } : {},
        csrf: button.dataset.csrf,
      }),
    );
  }
}

function passkeyRegistration() {
  const form = document.getElementById('passkey-register');
  if (!form || !window.SimpleWebAuthnBrowser) return;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // The API takes a label of 1 to 100 characters, or none: an empty field is none.
    const label = form.elements.label.value.trim();
    return ceremony(form.querySelector('button'), {
      optionsUrl: '/console/security/passkeys/options',
      optionsBody: {},
      run: window.SimpleWebAuthnBrowser.startRegistration,
      finishUrl: '/console/security/passkeys',
      finishBody: label ? { label } : {},
      csrf: form.dataset.csrf,
    });
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
passkeyButtons();
passkeyRegistration();
confirmations();
focusErrors();
copyButtons();

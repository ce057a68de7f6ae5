// The dashboard's stylesheet and its one script, served by this Worker (no CDN), under a CSP that
// allows nothing else. The script adds the copy buttons and passkeys (navigator.credentials: the
// forms marked data-passkey); every other page works without it.

export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,.scroll:focus-visible,.errors:focus{outline:3px solid #b45309;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:1}
.top{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:8px;padding:12px 16px;background:#14213d;color:#fff}
.brand{margin:0;font-weight:700}.brand span{font-weight:400;opacity:.9}
.who{display:flex;flex-wrap:wrap;align-items:center;gap:8px;overflow-wrap:anywhere}
.who form{margin:0}.who .link{color:#fff}.who a.link{text-decoration:underline}
nav ul{display:flex;flex-wrap:wrap;gap:4px 16px;margin:0;padding:8px 16px;list-style:none;background:#fff;border-bottom:1px solid #d0d7de}
nav a{display:inline-block;padding:6px 0;text-decoration:none}
nav a[aria-current=page]{font-weight:700;text-decoration:underline;color:#1b1f24}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
section,.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:16px;margin:0 0 16px}
.field{margin:0 0 12px}.field label,fieldset legend{display:block;font-weight:600}
input[type=text],input[type=email],input[type=url],input[type=date],select{width:100%;max-width:32rem;padding:8px;font:inherit;border:1px solid #57606a;border-radius:4px;background:#fff;color:inherit}
fieldset{border:0;margin:0 0 12px;padding:0}
.choice{display:flex;gap:8px;align-items:center;margin:4px 0}
.hint{margin:0 0 4px;color:#57606a;font-size:.9rem}
.invalid input{border:2px solid #b3261e}
.error{margin:0 0 4px;color:#b3261e;font-weight:600}
.errors{border:2px solid #b3261e;background:#fff;padding:8px 16px;margin:0 0 16px;border-radius:8px}.errors h2{margin:.25rem 0;color:#b3261e}
button{font:inherit;padding:8px 14px;border-radius:4px;border:1px solid #0b4fb8;background:#0b57d0;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#0b57d0}
button.danger{background:#b3261e;border-color:#8c1d18}
button.link{background:none;border:0;padding:0;text-decoration:underline;color:#0b57d0}
.inline{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0}
.inline select{width:auto}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:8px;border-bottom:1px solid #d0d7de;vertical-align:top}
th{background:#eef1f4;white-space:nowrap}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.95em;overflow-wrap:anywhere}
td.token,td.token code{white-space:nowrap;word-break:normal}
td time{white-space:nowrap}
a.button{display:inline-block;font:inherit;padding:8px 14px;border-radius:4px;border:1px solid #0b4fb8;text-decoration:none;background:#fff;color:#0b57d0}
a.button.danger{background:#b3261e;border-color:#8c1d18;color:#fff}
.once{border:2px solid #1a7f37;background:#f0fff4;border-radius:8px;padding:12px 16px;margin:0 0 16px}
.secret code{display:block;padding:8px;background:#fff;border:1px solid #d0d7de;border-radius:4px}
.notice{border-left:4px solid #0b57d0;background:#fff;padding:8px 12px}
.status-active{color:#1a7f37;font-weight:600}.status-ended{color:#57606a}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere;min-width:0}
meter{width:100%;max-width:32rem}
@media (max-width:600px){main{padding:12px}th,td{padding:6px}}
`;

/** The dashboard's icon: a page that names one is never asked for /favicon.ico (the API's 404). */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#14213d"/><path d="M4 11h8M4 8h8M4 5h5" stroke="#fff" stroke-width="1.6"/></svg>`;

export const SCRIPT = `document.addEventListener('click', function (event) {
  var button = event.target.closest && event.target.closest('button[data-copy]');
  if (!button) return;
  var text = document.getElementById(button.getAttribute('data-copy')).textContent;
  navigator.clipboard.writeText(text).then(function () { button.textContent = 'Copied'; }, function () { button.textContent = 'Select and copy it'; });
});

function b64u(buffer) {
  return btoa(String.fromCharCode.apply(null, new Uint8Array(buffer))).split('+').join('-').split('/').join('_').split('=').join('');
}
function unb64u(text) {
  return Uint8Array.from(atob(text.split('-').join('+').split('_').join('/')), function (ch) { return ch.charCodeAt(0); });
}
document.addEventListener('submit', function (event) {
  var form = event.target;
  var kind = form.getAttribute && form.getAttribute('data-passkey');
  if (!kind) return;
  event.preventDefault();
  var status = document.getElementById(form.getAttribute('data-status'));
  if (!window.PublicKeyCredential) { status.textContent = 'This browser cannot use passkeys.'; return; }
  var body = new URLSearchParams();
  if (form.elements._token) body.set('_token', form.elements._token.value);
  status.textContent = 'Waiting for your device…';
  fetch(form.getAttribute('data-options'), { method: 'POST', body: body, credentials: 'same-origin' }).then(function (reply) {
    if (!reply.ok) throw new Error('options');
    return reply.json();
  }).then(function (o) {
    if (kind === 'register') {
      return navigator.credentials.create({ publicKey: {
        challenge: unb64u(o.challenge), rp: o.rp, user: { id: unb64u(o.user.id), name: o.user.name, displayName: o.user.displayName },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }], attestation: 'none', timeout: 300000,
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
        excludeCredentials: o.exclude.map(function (id) { return { type: 'public-key', id: unb64u(id) }; })
      } });
    }
    return navigator.credentials.get({ publicKey: { challenge: unb64u(o.challenge), rpId: o.rpId, userVerification: 'preferred', timeout: 300000 } });
  }).then(function (credential) {
    var r = credential.response;
    var out = { id: credential.id, response: { clientDataJSON: b64u(r.clientDataJSON) } };
    if (r.attestationObject) out.response.attestationObject = b64u(r.attestationObject);
    else { out.response.authenticatorData = b64u(r.authenticatorData); out.response.signature = b64u(r.signature); out.response.userHandle = r.userHandle ? b64u(r.userHandle) : null; }
    form.elements.credential.value = JSON.stringify(out);
    form.submit();
  }).catch(function () {
    status.textContent = 'The passkey did not work (cancelled, or none for this site). Try again' + (kind === 'register' ? '.' : ', or ask for an e-mailed link.');
  });
});
`;

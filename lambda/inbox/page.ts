/**
 * The inbox's one page: HTML with its style and script inlined, nothing from a third party, and a
 * Content-Security-Policy that allows exactly that script and style (by hash), requests to the
 * inbox itself and to the sign-in provider's token endpoint, and nothing else. The script signs in
 * with the authorization code flow and PKCE (no client secret), keeps the token in the tab's
 * session storage, and sends it as `Authorization: Bearer` to `/api/`. Signing out forgets the token
 * and, when the provider has an end-session endpoint, ends the provider's session there too. Every value from an approval
 * reaches the page as text (`textContent`), never as markup.
 */
import { createHash } from 'node:crypto';

export interface PageConfig {
  readonly clientId: string;
  readonly scopes: string;
  readonly redirectUri: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  /** Where signing out ends the provider's session (OpenID Connect RP-initiated logout, Cognito's `/logout`). */
  readonly endSessionEndpoint?: string;
}

export interface InboxPage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

const STYLE = `
:root{color-scheme:light;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--accent:#0b5cad;--ok:#116329;--bad:#a40e26;--warn-bg:#fff8c5}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;border-bottom:1px solid var(--line)}
header h1{font-size:1.25rem;margin:0}
main{max-width:56rem;margin:0 auto;padding:1rem}
a{color:var(--accent)}
button{font:inherit;padding:.5rem 1rem;border-radius:.375rem;border:1px solid var(--line);background:#f6f8fa;color:var(--fg);cursor:pointer;min-height:2.75rem}
button.approve{background:var(--ok);border-color:var(--ok);color:#fff}
button.deny{background:var(--bad);border-color:var(--bad);color:#fff}
button:focus-visible,a:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
ul.approvals{list-style:none;padding:0;margin:0}
ul.approvals li{border:1px solid var(--line);border-radius:.5rem;padding:.75rem 1rem;margin:.5rem 0}
.tool{font-weight:600;font-size:1.05rem}
.meta{color:var(--muted);font-size:.9rem;margin:.25rem 0 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:1rem 0}
dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;border:1px solid var(--line);border-radius:.375rem;padding:.5rem;margin:0;font-size:.9rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1rem 0}
textarea{display:block;width:100%;min-height:5rem;font:inherit;padding:.5rem;border:1px solid var(--muted);border-radius:.375rem}
label{font-weight:600}
.notice{padding:.75rem 1rem;border-radius:.5rem;border:1px solid var(--line);margin:1rem 0}
.notice.alert{background:var(--warn-bg);border-color:#d4a72c}
.status-approved{color:var(--ok)}.status-denied,.status-expired{color:var(--bad)}
.empty{color:var(--muted)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){dl{grid-template-columns:1fr}dt{margin-top:.5rem}main{padding:.75rem}}
`;

const SCRIPT = `(function(){'use strict';
var config=JSON.parse(document.getElementById('inbox-config').textContent);
var main=document.getElementById('main'),live=document.getElementById('live'),who=document.getElementById('who');
var K={token:'inbox.token',idToken:'inbox.idToken',verifier:'inbox.verifier',state:'inbox.state',back:'inbox.return'};
var me=null;
function el(tag,attrs,kids){var n=document.createElement(tag);attrs=attrs||{};Object.keys(attrs).forEach(function(k){if(k==='text')n.textContent=attrs[k];else if(k==='onclick')n.addEventListener('click',attrs[k]);else n.setAttribute(k,attrs[k]);});(kids||[]).forEach(function(c){if(c!=null)n.appendChild(typeof c==='string'?document.createTextNode(c):c);});return n;}
function clear(n){while(n.firstChild)n.removeChild(n.firstChild);}
function say(text){live.textContent='';setTimeout(function(){live.textContent=text;},50);}
function b64url(bytes){var s='';bytes.forEach(function(b){s+=String.fromCharCode(b);});return btoa(s).replace(/\\+/g,'-').replace(/\\//g,'_').replace(/=+$/,'');}
function random(){var a=new Uint8Array(32);crypto.getRandomValues(a);return b64url(a);}
function when(iso){if(!iso)return '';var d=new Date(iso);return d.toLocaleString();}
function signIn(){var verifier=random(),state=random();
 return crypto.subtle.digest('SHA-256',new TextEncoder().encode(verifier)).then(function(h){
  sessionStorage.setItem(K.verifier,verifier);sessionStorage.setItem(K.state,state);sessionStorage.setItem(K.back,location.hash);
  var q=new URLSearchParams({response_type:'code',client_id:config.clientId,redirect_uri:config.redirectUri,scope:config.scopes,state:state,code_challenge:b64url(new Uint8Array(h)),code_challenge_method:'S256'});
  location.assign(config.authorizationEndpoint+'?'+q.toString());});}
function signOut(){var idToken=sessionStorage.getItem(K.idToken);sessionStorage.removeItem(K.token);sessionStorage.removeItem(K.idToken);me=null;
 if(!config.endSessionEndpoint)return showSignIn('You are signed out.');
 var q=new URLSearchParams({client_id:config.clientId,post_logout_redirect_uri:config.redirectUri,logout_uri:config.redirectUri});if(idToken)q.set('id_token_hint',idToken);
 location.assign(config.endSessionEndpoint+'?'+q.toString());}
function finishSignIn(params){var state=sessionStorage.getItem(K.state),verifier=sessionStorage.getItem(K.verifier),back=sessionStorage.getItem(K.back)||'';
 sessionStorage.removeItem(K.state);sessionStorage.removeItem(K.verifier);sessionStorage.removeItem(K.back);
 history.replaceState(null,'',location.pathname+back);
 if(!state||params.get('state')!==state||!verifier)return Promise.resolve(showSignIn('Sign-in did not complete (its state did not match). Sign in again.'));
 var body=new URLSearchParams({grant_type:'authorization_code',code:params.get('code'),redirect_uri:config.redirectUri,client_id:config.clientId,code_verifier:verifier});
 return fetch(config.tokenEndpoint,{method:'POST',headers:{'content-type':'application/x-www-form-urlencoded'},body:body.toString()}).then(function(r){return r.json().then(function(t){
  var token=t.id_token||t.access_token;if(!r.ok||!token)return showSignIn('Sign-in failed at the provider. Sign in again.');
  sessionStorage.setItem(K.token,token);if(t.id_token)sessionStorage.setItem(K.idToken,t.id_token);return start();});}).catch(function(){showSignIn('The sign-in provider could not be reached. Try again.');});}
function api(path,init){var token=sessionStorage.getItem(K.token);init=init||{};init.headers=Object.assign({authorization:'Bearer '+token},init.headers||{});
 return fetch('/api'+path,init).then(function(r){return r.json().catch(function(){return {};}).then(function(body){
  if(r.status===401){sessionStorage.removeItem(K.token);showSignIn('Your sign-in has ended. Sign in again.');throw new Error('signed out');}
  return {status:r.status,body:body};});});}
function showSignIn(message){clear(who);clear(main);document.title='Approvals: sign in';
 main.appendChild(el('h2',{text:'Sign in to decide approvals'}));
 if(message)main.appendChild(el('p',{'class':'notice',role:'status',text:message}));
 main.appendChild(el('button',{type:'button',id:'sign-in',onclick:signIn,text:'Sign in'}));}
function requester(r){var q=r.requested_by;if(!q)return 'not recorded';var c=q.claims||{};var name=c.email||c.name||c.username||q.id;return name+(name!==q.id?' ('+q.id+')':'')+(q.verified?'':' (not verified)');}
function toolOf(owner,name){var o=(me.owners||[]).filter(function(x){return x.owner===owner;})[0];var t=o&&(o.tools||[]).filter(function(x){return x.name===name;})[0];return t&&t.description||'';}
function link(owner,id){return '#/o/'+encodeURIComponent(owner)+'/a/'+encodeURIComponent(id);}
function start(){clear(main);main.appendChild(el('p',{text:'Loading...'}));
 return api('/me').then(function(res){if(res.status!==200)return problem(res);me=res.body;clear(who);
  who.appendChild(el('span',{text:'Signed in as '+(me.approver.display_name||me.approver.id)+' '}));
  who.appendChild(el('button',{type:'button',onclick:signOut,text:'Sign out'}));return route();});}
function problem(res){clear(main);main.appendChild(el('p',{'class':'notice alert',role:'alert',text:(res.body&&res.body.error&&res.body.error.message)||('The inbox answered '+res.status+'.')}));}
function route(){if(!me)return;var m=/^#\\/o\\/([^/]+)\\/a\\/([^/]+)$/.exec(location.hash),h=/^#\\/o\\/([^/]+)\\/history$/.exec(location.hash);
 if(m)return detail(decodeURIComponent(m[1]),decodeURIComponent(m[2]));if(h)return history_(decodeURIComponent(h[1]));return list();}
function list(){document.title='Approvals';clear(main);main.appendChild(el('h2',{text:'Pending approvals'}));
 if(!me.owners.length){main.appendChild(el('p',{'class':'empty',text:'You may decide no approvals here. Ask your administrator to add you to an approvers group.'}));return;}
 return Promise.all(me.owners.map(function(o){return api('/approvals?owner='+encodeURIComponent(o.owner)+'&status=pending&limit=100').then(function(res){
  var section=el('section',{'aria-labelledby':'owner-'+o.owner},[el('h3',{id:'owner-'+o.owner,text:o.owner})]);
  var items=(res.body.approvals||[]).slice().sort(function(a,b){return a.created_at<b.created_at?1:-1;});
  if(res.status!==200)section.appendChild(el('p',{'class':'notice alert',text:res.body.error?res.body.error.message:'Could not list.'}));
  else if(!items.length)section.appendChild(el('p',{'class':'empty',text:'Nothing waits for a decision.'}));
  else section.appendChild(el('ul',{'class':'approvals'},items.map(function(a){var d=toolOf(o.owner,a.tool);
   return el('li',{},[el('a',{'class':'tool',href:link(o.owner,a.approval_id),text:a.tool}),d?el('p',{text:d}):null,
    el('p',{'class':'meta',text:'Asked by '+requester(a)+' \\u00b7 asked '+when(a.created_at)+' \\u00b7 expires '+when(a.expires_at)})]);})));
  section.appendChild(el('p',{},[el('a',{href:'#/o/'+encodeURIComponent(o.owner)+'/history',text:'Decided and expired approvals of '+o.owner}) ]));
  return section;});})).then(function(sections){sections.forEach(function(s){main.appendChild(s);});var f=main.querySelector('h2');if(f){f.setAttribute('tabindex','-1');}});}
function history_(owner){document.title='Approvals: history of '+owner;clear(main);main.appendChild(el('p',{},[el('a',{href:'#/',text:'\\u2190 Pending approvals'})]));
 main.appendChild(el('h2',{text:'Decided and expired: '+owner}));
 return api('/approvals?owner='+encodeURIComponent(owner)+'&limit=50').then(function(res){if(res.status!==200)return problem(res);
  var items=(res.body.approvals||[]).filter(function(a){return a.status!=='pending';});
  if(!items.length){main.appendChild(el('p',{'class':'empty',text:'None yet.'}));return;}
  main.appendChild(el('ul',{'class':'approvals'},items.map(function(a){return el('li',{},[el('a',{'class':'tool',href:link(owner,a.approval_id),text:a.tool}),' ',el('span',{'class':'status-'+a.status,text:a.status}),
   el('p',{'class':'meta',text:(a.decided_by?'By '+a.decided_by+' \\u00b7 '+when(a.decided_at):'Expired '+when(a.expires_at))+(a.reason?' \\u00b7 Reason: '+a.reason:'')})]);})));});}
function value(v){var text=typeof v==='string'?v:JSON.stringify(v,null,2);if(text.length<=200)return el('pre',{text:text});
 return el('details',{},[el('summary',{text:text.slice(0,80)+'\\u2026 ('+text.length+' characters; show all)'}),el('pre',{text:text})]);}
function detail(owner,id){document.title='Approval '+id;clear(main);main.appendChild(el('p',{},[el('a',{href:'#/',text:'\\u2190 Pending approvals'})]));
 return api('/approvals/'+encodeURIComponent(id)+'?owner='+encodeURIComponent(owner)).then(function(res){if(res.status!==200)return problem(res);show(owner,res.body);});}
function show(owner,a,notice){var box=main;clear(box);box.appendChild(el('p',{},[el('a',{href:'#/',text:'\\u2190 Pending approvals'})]));
 var h=el('h2',{tabindex:'-1',text:a.tool});box.appendChild(h);var d=toolOf(owner,a.tool);if(d)box.appendChild(el('p',{text:d}));
 if(notice)box.appendChild(notice);
 var rows=[['Status',a.status],['Asked by',requester(a)],['Asked at',when(a.created_at)],['Expires at',when(a.expires_at)],['Approval',a.approval_id],['Owner',owner]];
 if(a.decided_by)rows.push(['Decided by',a.decided_by],['Decided at',when(a.decided_at)]);if(a.reason)rows.push(['Reason',a.reason]);
 box.appendChild(el('dl',{},[].concat.apply([],rows.map(function(r){return [el('dt',{text:r[0]}),el('dd',{'class':r[0]==='Status'?'status-'+a.status:'',text:r[1]})];}))));
 box.appendChild(el('h3',{text:'Arguments'}));var keys=Object.keys(a.args||{});
 box.appendChild(keys.length?el('dl',{'class':'args'},[].concat.apply([],keys.map(function(k){return [el('dt',{text:k}),el('dd',{},[value(a.args[k])])];}))):el('p',{'class':'empty',text:'No arguments.'}));
 if(a.status==='pending'){var actions=el('div',{'class':'actions'});
  actions.appendChild(el('button',{type:'button','class':'approve',onclick:function(){decide(owner,a,true);},text:'Approve'}));
  actions.appendChild(el('button',{type:'button','class':'deny',onclick:function(){denyForm(owner,a,actions);},text:'Deny\\u2026'}));box.appendChild(actions);}
 if(!notice)h.focus();}
function denyForm(owner,a,actions){clear(actions);var area=el('textarea',{id:'reason',required:'required','aria-describedby':'reason-help'});
 var form=el('form',{novalidate:'novalidate'},[el('label',{'for':'reason',text:'Reason for denying'}),el('p',{id:'reason-help','class':'meta',text:'The person who asked sees it.'}),area,
  el('div',{'class':'actions'},[el('button',{type:'submit','class':'deny',text:'Deny'}),el('button',{type:'button',onclick:function(){show(owner,a);},text:'Cancel'})])]);
 form.addEventListener('submit',function(e){e.preventDefault();if(!area.value.trim()){area.setAttribute('aria-invalid','true');say('A reason is needed to deny.');area.focus();return;}decide(owner,a,false,area.value.trim());});
 actions.appendChild(form);area.focus();}
function decide(owner,a,approved,reason){var body={approved:approved,fingerprint:a.fingerprint};if(reason)body.reason=reason;
 main.querySelectorAll('button').forEach(function(b){b.disabled=true;});
 return api('/approvals/'+encodeURIComponent(a.approval_id)+'/decision?owner='+encodeURIComponent(owner),{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(body)}).then(function(res){
  if(res.status===200){var text=approved?'Approved. The tool runs now.':'Denied. The person who asked is told why.';show(owner,res.body,el('p',{'class':'notice',role:'status',text:text}));say(text);return;}
  var e=res.body.error||{};var text2=res.status===409?(e.type==='expired'?'This approval expired before your decision: nothing was decided.':'This approval changed or was decided since you opened it: nothing was decided. Review it again.'):(e.message||('The inbox answered '+res.status+'.'));
  return api('/approvals/'+encodeURIComponent(a.approval_id)+'?owner='+encodeURIComponent(owner)).then(function(again){
   show(owner,again.status===200?again.body:a,el('p',{'class':'notice alert',role:'alert',text:text2}));});});}
window.addEventListener('hashchange',function(){route();});
var params=new URLSearchParams(location.search);
if(params.get('code'))finishSignIn(params);else if(params.get('error')){history.replaceState(null,'',location.pathname);showSignIn('Sign-in was refused by the provider ('+params.get('error')+').');}
else if(sessionStorage.getItem(K.token))start();else showSignIn();
})();`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const SCRIPT_HASH = hash(SCRIPT);
const STYLE_HASH = hash(STYLE);

/** `<`, `>` and `&` in JSON inside a script element, escaped so the data cannot end the element. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export function inboxPage(config: PageConfig): InboxPage {
  const tokenOrigin = new URL(config.tokenEndpoint).origin;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${SCRIPT_HASH}`,
    `style-src ${STYLE_HASH}`,
    `connect-src 'self' ${tokenOrigin}`,
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Approvals</title>' +
    `<style>${STYLE}</style></head><body>` +
    '<header><h1>Approvals</h1><div id="who"></div></header>' +
    '<main id="main" tabindex="-1"></main>' +
    '<div id="live" class="visually-hidden" role="status" aria-live="polite"></div>' +
    `<script type="application/json" id="inbox-config">${scriptSafeJson(config)}</script>` +
    `<script>${SCRIPT}</script></body></html>`;
  return { html, contentSecurityPolicy };
}

// Chromium's own network events (DevTools protocol, headless Chromium) turned into HAR by chrome-har.
// Usage: node chromium-cdp.js DEBUG_PORT PAGE_URL OUT.har
'use strict';
const CDP = require('chrome-remote-interface');
const {harFromMessages} = require('chrome-har');
const fs = require('fs');

(async () => {
  const [port, url, out] = process.argv.slice(2);
  const target = await CDP.New({port: Number(port)});
  const client = await CDP({port: Number(port), target});
  const events = [];
  const {Network, Page, Runtime} = client;
  for (const method of ['Page.loadEventFired', 'Page.domContentEventFired', 'Page.frameStartedLoading',
      'Page.frameAttached', 'Page.frameScheduledNavigation', 'Network.requestWillBeSent',
      'Network.requestServedFromCache', 'Network.dataReceived', 'Network.responseReceived',
      'Network.resourceChangedPriority', 'Network.loadingFinished', 'Network.loadingFailed']) {
    client.on(method, params => events.push({method, params}));
  }
  await Network.enable();
  await Page.enable();
  await Page.navigate({url});
  // wait until the page's script has made every request (it sets the title last)
  for (let i = 0; i < 100; i++) {
    const {result} = await Runtime.evaluate({expression: 'document.title'});
    if (result.value === 'done') break;
    await new Promise(r => setTimeout(r, 100));
  }
  await new Promise(r => setTimeout(r, 500));
  // response bodies, as DevTools' "Save all as HAR with content" includes them
  const har = harFromMessages(events, {includeTextFromResponseBody: false});
  for (const e of events.filter(e => e.method === 'Network.loadingFinished')) {
    try {
      const body = await Network.getResponseBody({requestId: e.params.requestId});
      // a redirect keeps its requestId: the body belongs to the last request sent under it
      const sent = events.filter(x => x.method === 'Network.requestWillBeSent' && x.params.requestId === e.params.requestId).pop();
      const entry = har.log.entries.find(x => sent && x.request.url === sent.params.request.url && !(x.response.status >= 300 && x.response.status < 400)
          && !x.response.content.text);
      if (entry) {
        entry.response.content.text = body.body;
        if (body.base64Encoded) entry.response.content.encoding = 'base64';
      }
    } catch (ignored) { /* a redirect has no body */ }
  }
  fs.writeFileSync(out, JSON.stringify(har, null, 2));
  await CDP.Close({port: Number(port), id: target.id});
  await client.close();
})().catch(e => { console.error(e); process.exit(1); });

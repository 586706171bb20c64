// Playwright's HAR recorder (recordHar) driving the system's Chromium, headless.
// Usage: node playwright.js CHROMIUM_PATH PAGE_URL OUT.har
'use strict';
const {chromium} = require('playwright-core');

(async () => {
  const [executablePath, url, out] = process.argv.slice(2);
  const browser = await chromium.launch({executablePath, headless: true, args: ['--no-sandbox']});
  const context = await browser.newContext({recordHar: {path: out, content: 'embed'}});
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => document.title === 'done');
  await page.waitForTimeout(300);
  await context.close(); // writes the HAR
  await browser.close();
})().catch(e => { console.error(e); process.exit(1); });

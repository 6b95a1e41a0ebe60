// web.mjs - drives corpus-gw's search page in headless chromium with
// playwright-core, for tests/integration/test_web_browser.sh (which writes
// the workspace, starts `corpus-gw serve` with two tokens and passes its
// URL; the tokens come in CG_ADMIN_TOKEN and CG_API_TOKEN, the browser in
// CG_CHROMIUM).  Each check throws on failure; exit 0 only when all pass.
//
//   tokens    / asks for a token (401); a wrong one is "not accepted"; the
//             admin token set through the form opens the page; the JSON
//             API does not take the cookie
//   search    typing searches (no Enter); a filter narrows the hits; a
//             hit opens its page with the hit lines marked; a backlink
//             leads to the linking page
//   conflict  both pages side by side, one marked winner, the rule shown
//   nojs      JavaScript disabled: the form submits, the server renders
//             the hits, a filter works
//   xss       a page whose title and body hold markup and <script> shows
//             them as text, in the hits and the page view; no script of
//             theirs runs and no element of theirs exists
//   hidden    with the api-only token, no HTML the gateway sends names
//             the hidden page (search, page view by uri), while the admin
//             token finds it (so the check is not vacuous)
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const base = process.argv[2];
const admin = process.env.CG_ADMIN_TOKEN;
const apiOnly = process.env.CG_API_TOKEN;
if (!base || !admin || !apiOnly || !process.env.CG_CHROMIUM) {
	console.error("usage: CG_CHROMIUM=... CG_ADMIN_TOKEN=... " +
		"CG_API_TOKEN=... node web.mjs URL");
	process.exit(2);
}

const hidden = {
	uri: "cg://acme/root/.guild/wiki/context/vault-secrets.md",
	words: ["vault-secrets", "Vault Secrets", "kept offline"],
};

function log(what) {
	console.log("ok - " + what);
}

// A context whose cookie holds token, set through the page's own form.
async function signIn(browser, token, opts = {}) {
	const ctx = await browser.newContext(opts);
	const page = await ctx.newPage();
	const r = await page.goto(base + "/");
	assert.equal(r.status(), 401, "/ without a token answers 401");
	await page.fill("input[name=token]", token);
	await Promise.all([page.waitForURL(base + "/"),
		page.click("form#token button")]);
	assert.ok(await page.locator("form#search").isVisible(),
		"the search form after the token");
	return { ctx, page };
}

async function hitTitles(page) {
	return page.locator("#hits .hit a.title").allTextContents();
}

async function checkTokens(browser) {
	const ctx = await browser.newContext();
	const page = await ctx.newPage();
	let r = await page.goto(base + "/?q=Postgres");
	assert.equal(r.status(), 401);
	assert.equal(await page.locator("#hits").count(), 0);
	await page.fill("input[name=token]", "not-a-token");
	await page.click("form#token button");
	await page.waitForSelector("#error");
	assert.match(await page.textContent("#error"), /not accepted/);
	await ctx.close();

	const s = await signIn(browser, admin);
	// The cookie is the page's credential only: the API wants the header.
	r = await s.ctx.request.get(base + "/v1/search?q=Postgres");
	assert.equal(r.status(), 401, "the JSON API refuses the cookie");
	const cookies = await s.ctx.cookies();
	const c = cookies.find((k) => k.name === "cg_token");
	assert.ok(c && c.httpOnly && c.sameSite === "Strict",
		"the token cookie is HttpOnly and SameSite=Strict");
	// Forgetting it brings the form back.
	await s.page.click("form.forget button");
	await s.page.waitForSelector("form#token");
	await s.ctx.close();
	log("tokens: form, wrong token, cookie flags, API header only, forget");
}

async function checkSearch(browser) {
	const { ctx, page } = await signIn(browser, admin);
	// Type: the script searches as the words come, no Enter.
	await page.locator("#q").pressSequentially("Postgres", { delay: 20 });
	await page.waitForFunction(() =>
		document.querySelectorAll("#hits .hit").length >= 3);
	let titles = await hitTitles(page);
	for (const t of ["Use Postgres", "Caching", "Auth Flow"])
		assert.ok(titles.includes(t), `hit ${t} in ${titles}`);
	assert.match(page.url(), /[?&]q=Postgres/, "the address follows");
	const tag = await page.locator("#hits .hit", { hasText: "Auth Flow" })
		.locator(".source").textContent();
	assert.equal(tag, "api", "a hit is tagged by its source");
	const snip = page.locator("#hits .hit", { hasText: "Use Postgres" })
		.locator(".snippet mark");
	assert.equal(await snip.first().textContent(), "Postgres");

	// A filter: category concept drops the decision.
	await page.selectOption("select[name=category]", "concept");
	await page.waitForFunction(() => !Array.from(
		document.querySelectorAll("#hits a.title"))
		.some((a) => a.textContent === "Use Postgres"));
	titles = await hitTitles(page);
	assert.deepEqual(titles.sort(), ["Auth Flow", "Caching"]);
	// And source api keeps only the sub-guild's page.
	await page.selectOption("select[name=source]", "acme/api");
	await page.waitForFunction(() =>
		document.querySelectorAll("#hits .hit").length === 1);
	assert.deepEqual(await hitTitles(page), ["Auth Flow"]);
	await page.selectOption("select[name=source]", "");
	await page.waitForFunction(() =>
		document.querySelectorAll("#hits .hit").length === 2);

	// Open a hit: the page, its hit lines marked, its line range shown.
	const hit = page.locator("#hits .hit", { hasText: "Caching" });
	const range = await hit.locator(".lines").textContent();
	const m = range.match(/lines (\d+)\D(\d+)/);
	assert.ok(m, `a line range on the hit: ${range}`);
	await Promise.all([page.waitForURL(/\/page\?/),
		hit.locator("a.title").click()]);
	assert.equal(await page.textContent("#page h1"), "Caching");
	const marked = await page.locator("#text li.hit").evaluateAll(
		(ls) => ls.map((l) => Number(l.value)));
	assert.deepEqual([marked[0], marked[marked.length - 1]],
		[Number(m[1]), Number(m[2])], "the hit's lines are marked");
	assert.ok((await page.locator("#outgoing").textContent())
		.includes("Use Postgres"), "outgoing link listed");

	// Follow a backlink.
	await Promise.all([page.waitForURL(/use-postgres/),
		page.click("#backlinks a:has-text('Use Postgres')")]);
	assert.equal(await page.textContent("#page h1"), "Use Postgres");
	const back = await page.locator("#backlinks a").allTextContents();
	assert.ok(back.includes("Caching") && back.includes("Auth Flow"),
		`backlinks of Use Postgres: ${back}`);
	await ctx.close();
	log("search: type, filter (category, source), open a hit, backlink");
}

async function checkConflict(browser) {
	const { ctx, page } = await signIn(browser, admin);
	await page.goto(base + "/?q=" + encodeURIComponent("message queue"));
	const c = page.locator("#conflicts .conflict").first();
	assert.equal(await c.locator(".side").count(), 2, "two sides");
	const win = c.locator(".side.winner");
	assert.equal(await win.count(), 1, "one winner");
	assert.match(await win.textContent(), /2026-05-01/,
		"the newer page wins");
	assert.ok((await c.locator(".rule").textContent()).length > 6,
		"the rule is written");
	const cols = await c.locator(".side").evaluateAll((s) =>
		s.map((e) => e.getBoundingClientRect().top));
	assert.equal(Math.round(cols[0]), Math.round(cols[1]), "side by side");
	await ctx.close();
	log("conflict: two sides, winner, rule");
}

async function checkNoJs(browser) {
	const { ctx, page } = await signIn(browser, admin,
		{ javaScriptEnabled: false });
	await page.fill("#q", "Postgres");
	await Promise.all([page.waitForURL(/[?&]q=Postgres/),
		page.press("#q", "Enter")]);
	assert.ok((await hitTitles(page)).includes("Use Postgres"));
	await page.selectOption("select[name=category]", "decision");
	await Promise.all([page.waitForURL(/category=decision/),
		page.click("form#search button[type=submit]")]);
	assert.deepEqual(await hitTitles(page), ["Use Postgres"]);
	await ctx.close();
	log("nojs: server-rendered search and filter");
}

async function checkXss(browser) {
	const { ctx, page } = await signIn(browser, admin);
	const dialogs = [];
	page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
	const title = '<b id="xss-b">bold</b><script>window.__xss=1</script>';
	for (const url of ["/?q=xssprobe", null]) {
		if (url) {
			await page.goto(base + url);
			const t = page.locator("#hits a.title").first();
			assert.equal(await t.textContent(), title,
				"the title is shown as text");
			assert.match(await page.locator("#hits .snippet").first()
				.textContent(), /<img src=x|<script>/);
			await Promise.all([page.waitForURL(/\/page\?/), t.click()]);
		} else {
			assert.equal(await page.textContent("#page h1"), title);
			const text = await page.textContent("#text");
			assert.ok(text.includes('<img src=x onerror="window.__xss=2">'));
			assert.ok(text.includes("<script>window.__xss=3</script>"));
		}
		assert.equal(await page.evaluate(() => window.__xss), undefined,
			"no fixture script ran");
		assert.equal(await page.locator("#xss-b, main img, main script")
			.count(), 0, "no fixture element exists");
		assert.deepEqual(await page.locator("script").evaluateAll(
			(s) => s.map((e) => e.getAttribute("src"))),
			["/static/search.js"], "the page's own script only");
	}
	assert.deepEqual(dialogs, []);
	await ctx.close();
	log("xss: markup and script shown as text, none run");
}

async function checkHidden(browser) {
	const adminCtx = (await signIn(browser, admin)).ctx;
	let r = await adminCtx.request.get(base + "/?q=zanzibar");
	assert.ok((await r.text()).includes(hidden.uri),
		"the admin token finds the page the other token may not see");
	await adminCtx.close();

	const { ctx } = await signIn(browser, apiOnly);
	const urls = ["/?q=zanzibar", "/?q=vault", "/?q=offline",
		"/?category=context", "/?q=Postgres"];
	for (const u of urls) {
		r = await ctx.request.get(base + u);
		const html = await r.text();
		for (const w of [hidden.uri, ...hidden.words])
			assert.ok(!html.includes(w), `${u} holds '${w}'`);
	}
	// The page view of a hidden page is the page view of a missing one:
	// the same status and words but for the uri (and path) asked for,
	// nothing of its text.  The api token sees no page of acme/root, so
	// that whole source is out of its scope: both are answered as a
	// source that does not exist (400 unknown source, as the API does).
	const missing = "cg://acme/root/.guild/wiki/context/no-such-page.md";
	const view = async (uri) => {
		const res = await ctx.request.get(base + "/page?uri=" +
			encodeURIComponent(uri));
		const path = uri.split("/").slice(4).join("/");
		return [res.status(), (await res.text()).replaceAll(uri, "URI")
			.replaceAll(path, "PATH")];
	};
	const [hs, hhtml] = await view(hidden.uri);
	const [ms, mhtml] = await view(missing);
	assert.equal(hs, 400, "a page of a hidden source is not found");
	assert.equal(ms, 400);
	assert.ok(mhtml.includes("unknown source"), "it says unknown source");
	assert.equal(hhtml, mhtml, "hidden and missing look the same");
	for (const w of hidden.words.slice(1))
		assert.ok(!hhtml.includes(w), `the hidden page view holds '${w}'`);
	const [cs, chtml] = await view(
		"cg://acme/root/.guild/wiki/concepts/caching.md");
	assert.equal(cs, 400, "a root page is hidden from the api token");
	assert.ok(!chtml.includes("sits in front of"), "no root page text");
	r = await ctx.request.get(base + "/?q=Postgres");
	assert.ok((await r.text()).includes("auth-flow.md"),
		"the api-only token sees its own page");
	await ctx.close();
	log("hidden: a page the token may not see is in no HTML");
}

// As root, chromium's sandbox cannot start: --no-sandbox is needed there
// (this container runs the tests as root); otherwise the sandbox stays.
const args = process.getuid && process.getuid() === 0 ? ["--no-sandbox"] : [];
const browser = await chromium.launch({
	executablePath: process.env.CG_CHROMIUM, headless: true, args,
});
let failed = 0;
for (const check of [checkTokens, checkSearch, checkConflict, checkNoJs,
	checkXss, checkHidden]) {
	try {
		await check(browser);
	} catch (e) {
		failed++;
		console.error(`not ok - ${check.name}: ${e.stack || e}`);
	}
}
await browser.close();
process.exit(failed ? 1 : 0);

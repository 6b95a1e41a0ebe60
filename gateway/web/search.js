// search.js - the search page's only script (served at /static/search.js
// from the binary).  An enhancement: without it the form submits and the
// server renders the results.  With it, typing and changing a filter
// search as you go: the script asks the server for the same page
// (GET /?q=...), takes its #results section and swaps it in, and keeps
// the address bar in step.  It never builds markup from strings: the
// server's HTML (escaped there) is parsed by DOMParser, whose scripts do
// not run, and moved in as nodes.
"use strict";
(function () {
	const form = document.getElementById("search");
	const results = document.getElementById("results");
	if (!form || !results)
		return;
	let timer = 0;
	let asked = 0;

	function query() {
		const params = new URLSearchParams();
		for (const [k, v] of new FormData(form))
			if (v !== "")
				params.append(k, v);
		return params.toString();
	}

	async function search() {
		const qs = query();
		const mine = ++asked;
		const url = qs ? "/?" + qs : "/";
		let text;
		try {
			const r = await fetch(url, { credentials: "same-origin" });
			text = await r.text();
		} catch (e) {
			return; // the form still works: Enter submits it
		}
		if (mine !== asked)
			return; // a later request answers instead
		const doc = new DOMParser().parseFromString(text, "text/html");
		const fresh = doc.getElementById("results");
		if (!fresh)
			return;
		results.replaceChildren(...Array.from(fresh.childNodes,
			(n) => document.importNode(n, true)));
		history.replaceState(null, "", url);
	}

	function later() {
		clearTimeout(timer);
		timer = setTimeout(search, 200);
	}

	form.addEventListener("input", later);
	form.addEventListener("change", later);
	form.addEventListener("submit", (e) => {
		e.preventDefault();
		clearTimeout(timer);
		search();
	});
})();

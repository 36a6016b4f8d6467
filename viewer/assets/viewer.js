// The session viewer's script. Everything it inserts as HTML was rendered
// and escaped by the Go side (package viewer); what it builds itself it
// builds as text. No framework, no build step.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const embedded = $('data');
  const DATA = embedded ? JSON.parse(embedded.textContent) : null; // an exported file
  const roundsEl = $('rounds'), moreEl = $('more'), q = $('q'), facet = $('facet'), statusEl = $('status');
  const CHUNK = 25;
  let cur = null;   // the session shown: {id, v, live, title, side, index, html}
  let matches = []; // the indexes of the rounds the search and filter keep
  let shown = 0;    // how many of matches are on the page
  let loading = false;
  let events = null;
  let gen = 0;      // changes with the session or the filter: late answers are dropped

  function api(path) {
    return fetch(path, {cache: 'no-store'}).then((r) => {
      if (!r.ok) return r.text().then((t) => { throw new Error(t.trim() || r.statusText); });
      return r.json();
    });
  }

  function fetchPage(id) {
    if (DATA) {
      const p = DATA.sessions[id];
      return p ? Promise.resolve(p) : Promise.reject(new Error('session ' + id + ' is not in this file'));
    }
    return api('api/session?id=' + encodeURIComponent(id));
  }

  function fetchRounds(c, list) {
    const parts = [];
    for (let i = 0; i < list.length; i += CHUNK) {
      const part = list.slice(i, i + CHUNK);
      parts.push(api('api/rounds?id=' + encodeURIComponent(c.id) + '&i=' + part.join(',')).then((m) => {
        for (const k in m) c.html[+k] = m[k];
      }));
    }
    return Promise.all(parts);
  }

  function open(id) {
    gen++;
    if (events) { events.close(); events = null; }
    statusEl.textContent = 'loading…';
    const g = gen;
    fetchPage(id).then((p) => {
      if (g !== gen) return;
      const html = new Array(p.index.length);
      for (let i = 0; i < p.h.length; i++) html[p.from + i] = p.h[i];
      cur = {id: p.id, v: p.v, live: p.live, title: p.title, side: p.side, index: p.index, html};
      $('title').textContent = p.title;
      document.title = p.title + ' · wield view';
      $('side').innerHTML = p.side;
      filter();
      follow();
    }).catch((err) => { statusEl.textContent = err.message; });
  }

  const entities = {'&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#34;': '"', '&#39;': "'"};

  // plain is the text of a round's HTML, for search in an exported file,
  // which carries the HTML but not the text again.
  function plain(h) {
    return h.replace(/<[^>]*>/g, ' ').replace(/&(lt|gt|amp|quot|#34|#39);/g, (m) => entities[m]).toLowerCase();
  }

  function match() {
    const needle = q.value.trim().toLowerCase(), f = facet.value, ix = cur.index;
    matches = [];
    for (let i = 0; i < ix.length; i++) {
      if (f && (' ' + ix[i].k + ' ').indexOf(' ' + f + ' ') < 0) continue;
      if (needle) {
        if (ix[i].t === undefined) {
          if (!DATA) return texts(); // the search text is not here yet
          ix[i].t = plain(cur.html[i]);
        }
        if (ix[i].t.indexOf(needle) < 0) continue;
      }
      matches.push(i);
    }
  }

  // texts fetches the search text of every round once, then filters again.
  function texts() {
    matches = [];
    const c = cur;
    if (c.texts) return;
    statusEl.textContent = 'searching…';
    c.texts = api('api/text?id=' + encodeURIComponent(c.id)).then((ts) => {
      for (let i = 0; i < ts.length && i < c.index.length; i++) if (c.index[i].t === undefined) c.index[i].t = ts[i];
      for (const x of c.index) if (x.t === undefined) x.t = '';
      if (c === cur) filter();
    }, (err) => { c.texts = null; statusEl.textContent = err.message; });
  }

  function filter() {
    if (!cur) return;
    gen++;
    match();
    roundsEl.textContent = '';
    shown = 0;
    loading = false;
    more(false);
  }

  function count() {
    const n = cur.index.length;
    let s = matches.length === n ? n + ' rounds' : matches.length + ' of ' + n + ' rounds';
    if (cur.live) s += ' · live';
    statusEl.textContent = s;
  }

  function nearBottom() { return moreEl.getBoundingClientRect().top < window.innerHeight + 800; }

  // more puts the next chunk of matching rounds on the page (all the
  // remaining ones with all), fetching the HTML it lacks.
  function more(all, reopen) {
    if (!cur) return;
    if (loading || shown >= matches.length) { count(); return; }
    const c = cur, g = gen;
    const want = matches.slice(shown, all ? matches.length : shown + CHUNK);
    const missing = want.filter((i) => c.html[i] === undefined);
    const render = () => {
      if (g !== gen || c !== cur) return;
      const t = document.createElement('template');
      t.innerHTML = want.map((i) => '<div class="slot" data-i="' + i + '">' + c.html[i] + '</div>').join('');
      if (reopen) {
        for (const d of t.content.querySelectorAll('details.call')) if (reopen.has(d.dataset.call)) d.open = true;
      }
      roundsEl.appendChild(t.content);
      if (shown === 0 && !c.painted) {
        c.painted = true;
        // For measurements: the frame that shows a session's first rounds.
        requestAnimationFrame(() => {
          performance.mark('wield:rounds', {detail: c.id});
          if (afterPaint) setTimeout(afterPaint);
          afterPaint = null;
        });
      }
      shown += want.length;
      loading = false;
      count();
      if (nearBottom()) more(false);
    };
    if (missing.length === 0) { render(); return; }
    loading = true;
    fetchRounds(c, missing).then(render, (err) => { loading = false; statusEl.textContent = err.message; });
  }

  // follow applies the server's updates while the session is written.
  function follow() {
    if (DATA || !window.EventSource) return;
    const c = cur;
    events = new EventSource('api/events?id=' + encodeURIComponent(c.id) + '&n=' + c.index.length + '&v=' + c.v);
    events.addEventListener('update', (e) => {
      if (c !== cur) return;
      const u = JSON.parse(e.data);
      const wasAll = shown >= matches.length;
      c.v = u.v;
      c.live = u.live;
      c.side = u.side;
      $('side').innerHTML = u.side;
      c.index.length = u.from;
      c.html.length = u.from;
      for (let i = 0; i < u.index.length; i++) {
        c.index.push(u.index[i]);
        c.html.push(u.h[i]);
      }
      // Take the changed rounds off the page, keeping what was open.
      const reopen = new Set();
      const slots = roundsEl.children;
      let kept = slots.length;
      while (kept > 0 && +slots[kept - 1].dataset.i >= u.from) {
        for (const d of slots[kept - 1].querySelectorAll('details.call[open]')) reopen.add(d.dataset.call);
        slots[kept - 1].remove();
        kept--;
      }
      gen++;
      loading = false;
      match();
      shown = kept;
      more(wasAll, reopen);
    });
  }

  let home = ''; // the session shown when the URL names none
  let afterPaint = null; // what waits for the first rounds on screen

  function route() {
    const m = /^#s=(.+)$/.exec(location.hash);
    if (m) open(decodeURIComponent(m[1]));
    else if (home) open(home);
    return !!m;
  }

  q.addEventListener('input', filter);
  facet.addEventListener('change', filter);
  $('expand').addEventListener('click', () => {
    const calls = roundsEl.querySelectorAll('details.call');
    const openAll = Array.prototype.some.call(calls, (d) => !d.open);
    for (const d of calls) d.open = openAll;
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === '/' && document.activeElement !== q) { e.preventDefault(); q.focus(); }
  });
  window.addEventListener('hashchange', route);
  new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) more(false); }, {rootMargin: '800px'}).observe(moreEl);

  if (DATA) {
    $('list').innerHTML = DATA.list;
    home = DATA.root;
    route();
    return;
  }
  // The list of sessions reads every journal of the store: when the URL
  // names a session, it is asked for after that session's first rounds
  // are on screen.
  const list = () => api('api/sessions').then((s) => {
    $('list').innerHTML = s.list;
    home = s.newest;
    return s;
  });
  if (route()) {
    afterPaint = () => list().catch((err) => { statusEl.textContent = err.message; });
  } else {
    list().then((s) => {
      if (s.newest) open(s.newest);
      else statusEl.textContent = 'no sessions in this store';
    }).catch((err) => { statusEl.textContent = err.message; });
  }
})();

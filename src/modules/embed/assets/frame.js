/* The embed page's script (GET /embed/frame.js). The page reads right without it; with it, the
 * campaign's live stream moves the numbers and adds new gifts, and the page tells the
 * <campaign-widget> element around it how tall it is. Served as is: plain browser JavaScript. */
/* global window, document, EventSource, ResizeObserver */
(function () {
  'use strict';

  // The element on the partner's page sizes its iframe from this; the message says only a height
  // and the page's title, so any origin may read it ('*': the embedding origin is not known here).
  var main = document.querySelector('main');
  function postSize() {
    if (!main || window.parent === window) return;
    var height = Math.ceil(main.getBoundingClientRect().height);
    window.parent.postMessage({ type: 'campaign-widget:size', height: height, title: document.title }, '*');
  }
  if (typeof ResizeObserver === 'function' && main) new ResizeObserver(postSize).observe(main);
  window.addEventListener('load', postSize);
  postSize();

  var dataEl = document.getElementById('embed-data');
  if (!dataEl || typeof EventSource !== 'function') return;
  var data = JSON.parse(dataEl.textContent);
  var strings = data.strings;
  var plural = new Intl.PluralRules(data.locale);
  var count = new Intl.NumberFormat(data.locale);
  var percent = new Intl.NumberFormat(data.locale, { style: 'percent', maximumFractionDigits: 0 });

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (m, k) {
      return Object.prototype.hasOwnProperty.call(values, k) ? values[k] : m;
    });
  }
  // The server's formatting (embed.labels.ts money): cents only when there are any.
  function money(cents, currency) {
    var digits = cents % 100 === 0 ? 0 : 2;
    try {
      return new Intl.NumberFormat(data.locale, { style: 'currency', currency: currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(cents / 100);
    } catch {
      return new Intl.NumberFormat(data.locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(cents / 100) + ' ' + currency;
    }
  }
  function setText(id, text) {
    var el = document.getElementById(id);
    if (el && el.textContent !== text) el.textContent = text;
  }

  function onProgress(p) {
    setText('raised', money(p.total_raised_cents, data.currency));
    setText('goal', money(p.goal_amount_cents, data.currency));
    setText('funded', fill(strings.funded, { pct: percent.format(p.percentage_funded / 100) }));
    setText('donors', fill(strings.donors[plural.select(p.donor_count)] || strings.donors.other, { n: count.format(p.donor_count) }));
    var bar = document.getElementById('progress');
    if (bar) {
      bar.value = Math.min(100, p.percentage_funded);
      bar.textContent = percent.format(p.percentage_funded / 100);
    }
  }

  function onDonation(g) {
    var list = document.getElementById('gifts');
    if (!list || document.getElementById('gift-' + g.id)) return;
    var none = list.querySelector('li.none');
    if (none) none.remove();
    var li = document.createElement('li');
    li.id = 'gift-' + g.id;
    var name = document.createElement('span');
    name.className = 'name';
    name.textContent = (g.donor_name && g.donor_name.trim()) || strings.anonymous;
    var amount = document.createElement('span');
    amount.className = 'amount';
    amount.textContent = money(g.amount_cents, g.currency);
    li.append(name, amount);
    list.prepend(li);
    while (list.children.length > data.maxGifts) list.lastElementChild.remove();
  }

  function onClosed(stream) {
    stream.close();
    var donate = document.getElementById('donate');
    if (donate) donate.remove();
    if (!document.getElementById('state')) {
      var state = document.createElement('p');
      state.className = 'state';
      state.id = 'state';
      state.textContent = strings.ended;
      var stats = document.querySelector('.stats');
      if (stats) stats.after(state);
    }
  }

  function json(handler) {
    return function (e) {
      var value;
      try {
        value = JSON.parse(e.data);
      } catch {
        return;
      }
      handler(value);
    };
  }

  // EventSource reconnects by itself, sending the last event id, so no gift is missed across a drop.
  var stream = new EventSource(data.live);
  stream.addEventListener('progress', json(onProgress));
  stream.addEventListener('donation', json(onDonation));
  stream.addEventListener('closed', function () {
    onClosed(stream);
  });
})();

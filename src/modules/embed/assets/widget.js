/* GET /embed/widget.js: defines <campaign-widget slug="..." lang="..." theme="...">, which shows
 * the campaign's embed page (/embed/fundraisers/{slug}) in an iframe as tall as that page says it
 * is. Served as is, with ORIGIN set to the service's origin (PUBLIC_URL): only
 * messages from that origin, and from the element's own frame, are believed. */
/* global window, document, customElements, HTMLElement, CSSStyleSheet, URL */
(function () {
  'use strict';
  const ORIGIN = '__SERVICE_ORIGIN__';
  const LANGS = ['en', 'ru', 'uk', 'es'];
  const THEMES = ['light', 'dark'];
  const MAX_HEIGHT = 4000;
  if (!window.customElements || customElements.get('campaign-widget')) return;

  const widgets = new Set();

  class CampaignWidget extends HTMLElement {
    static get observedAttributes() {
      return ['slug', 'lang', 'theme'];
    }

    // An unknown language or theme falls back to the page's default (English, light), not an error page.
    frameUrl() {
      const slug = (this.getAttribute('slug') || '').trim();
      if (!slug) return null;
      const url = new URL('/embed/fundraisers/' + encodeURIComponent(slug), ORIGIN);
      const lang = (this.getAttribute('lang') || '').trim().toLowerCase();
      const theme = (this.getAttribute('theme') || '').trim().toLowerCase();
      if (LANGS.includes(lang)) url.searchParams.set('lang', lang);
      if (THEMES.includes(theme)) url.searchParams.set('theme', theme);
      return url.href;
    }

    render() {
      if (!this.frame) {
        // A shadow root keeps the host page's CSS off the frame. Styles go through the CSSOM (a
        // constructed sheet, the frame's style properties), which a host page's CSP does not
        // block as it would a <style> element this script added.
        const root = this.attachShadow({ mode: 'open' });
        if (typeof CSSStyleSheet === 'function' && 'adoptedStyleSheets' in root) {
          const sheet = new CSSStyleSheet();
          sheet.replaceSync(':host{display:block;max-width:100%}');
          root.adoptedStyleSheets = [sheet];
        }
        this.frame = document.createElement('iframe');
        Object.assign(this.frame.style, { display: 'block', width: '100%', height: '420px', border: '0' });
        this.frame.title = 'Campaign';
        root.append(this.frame);
      }
      const src = this.frameUrl();
      if (src && this.frame.src !== src) this.frame.src = src;
      this.frame.hidden = !src;
    }

    resize(message) {
      const height = Number(message.height);
      if (!Number.isFinite(height) || height <= 0) return;
      this.frame.style.height = Math.min(MAX_HEIGHT, Math.ceil(height)) + 'px';
      if (typeof message.title === 'string' && message.title) this.frame.title = message.title.slice(0, 200);
    }

    connectedCallback() {
      widgets.add(this);
      this.render();
    }

    disconnectedCallback() {
      widgets.delete(this);
    }

    attributeChangedCallback() {
      if (this.isConnected) this.render();
    }
  }

  window.addEventListener('message', function (e) {
    if (e.origin !== ORIGIN) return;
    const m = e.data;
    if (!m || typeof m !== 'object' || m.type !== 'campaign-widget:size') return;
    widgets.forEach(function (w) {
      if (w.frame && w.frame.contentWindow === e.source) w.resize(m);
    });
  });

  customElements.define('campaign-widget', CampaignWidget);
})();

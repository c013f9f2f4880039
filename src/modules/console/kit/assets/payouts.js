// The console's payouts behaviour (issue 19); see console.js for how areas register. Two parts,
// each acting only on the elements that ask for it; both pages work without them.
//
// form[data-upload-form] (payouts/pages/upload.tsx): the form is sent through XMLHttpRequest instead, with
// the same fields (FormData) and the CSRF token in its header too, so that the page can show the
// upload's progress (upload.onprogress) and then that the file is being read. A file over the
// form's data-max-bytes is refused before anything is sent. The answer: on success the address of
// the batch (HX-Redirect, as http.ts redirect answers a request that says HX-Request), where the
// browser goes; on a refusal the form page with its messages, which replaces this page's main
// content (the user chooses the file again, as without the script).
//
// [data-live-batch] (payouts/pages/live-batch.tsx): an EventSource on the batch's events. Each event sets
// the text of the strip's [data-live] elements (textContent only); a change of status is
// announced in the strip's role="status" element, and the regions that depend on the state
// (#batch-live and the lines, #line-results) are fetched again from the batch page and swapped in
// (htmx.swap: its content is processed by htmx and the other areas' enhancers run on it, as after
// any htmx swap). While payouts complete, the figures change without a change of status: the
// regions are then redrawn at most every RELOAD_EVERY_MS. The stream ends at a final state, after
// a while (the strip says to refresh), or when the session ends.
(function () {
  'use strict';
  var RELOAD_EVERY_MS = 5000;
  /** Progress is announced at these steps only (a screen reader would hear every percent otherwise). */
  var ANNOUNCE_STEP_PERCENT = 25;

  function all(root, selector) {
    if (root.matches && root.matches(selector)) return [root];
    return root.querySelectorAll ? Array.prototype.slice.call(root.querySelectorAll(selector)) : [];
  }

  // ---------------------------------------------------------------------------------------------
  // Upload with progress

  function uploadEnhancer(root) {
    all(root, 'form[data-upload-form]').forEach(function (form) {
      if (form.getAttribute('data-upload-ready') === 'true') return;
      if (!window.XMLHttpRequest || !window.FormData) return;
      form.setAttribute('data-upload-ready', 'true');
      form.addEventListener('submit', function (event) {
        send(form, event);
      });
    });
  }

  function send(form, event) {
    var input = form.querySelector('input[type="file"]');
    var file = input && input.files && input.files[0];
    var box = form.querySelector('[data-upload-progress]');
    var bar = form.querySelector('[data-upload-bar]');
    var status = form.querySelector('[data-upload-status]');
    var button = form.querySelector('button[type="submit"]');
    var maxBytes = Number(form.getAttribute('data-max-bytes'));
    if (!box || !bar || !status) return; // the form as it is: a plain POST
    event.preventDefault();
    if (form.getAttribute('data-busy') === 'true') return;
    box.hidden = false;
    if (file && maxBytes && file.size > maxBytes) {
      bar.value = 0;
      status.textContent = form.getAttribute('data-text-too-large');
      if (input) input.focus();
      return;
    }
    form.setAttribute('data-busy', 'true');
    if (button) button.disabled = true;
    var announced = -1;
    var uploading = form.getAttribute('data-text-uploading');
    // The bar follows every progress event; the status (role="status") says it in steps.
    var show = function (percent) {
      bar.value = percent;
      var step = Math.floor(percent / ANNOUNCE_STEP_PERCENT) * ANNOUNCE_STEP_PERCENT;
      if (step !== announced) {
        announced = step;
        status.textContent = uploading.replace('{percent}', String(step));
      }
    };
    var failed = function () {
      form.removeAttribute('data-busy');
      if (button) button.disabled = false;
      bar.value = 0;
      status.textContent = form.getAttribute('data-text-failed');
    };
    var csrf = form.querySelector('input[name="_csrf"]');
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    if (csrf) xhr.setRequestHeader('X-CSRF-Token', csrf.value);
    // http.ts redirect: a request that says HX-Request gets the address in HX-Redirect, not a 303 to follow.
    xhr.setRequestHeader('HX-Request', 'true');
    xhr.upload.addEventListener('progress', function (e) {
      if (e.lengthComputable && e.total > 0) show(Math.min(100, Math.floor((e.loaded * 100) / e.total)));
    });
    xhr.upload.addEventListener('load', function () {
      show(100);
      // The file is on the server: it is being read and checked (no figure to show for that).
      bar.removeAttribute('value');
      status.textContent = form.getAttribute('data-text-reading');
    });
    xhr.addEventListener('load', function () {
      var next = xhr.getResponseHeader('HX-Redirect');
      if (next) {
        window.location.assign(next);
        return;
      }
      var contentType = xhr.getResponseHeader('Content-Type') || '';
      if (contentType.indexOf('text/html') !== 0) return failed();
      showAnswer(xhr.responseText);
    });
    xhr.addEventListener('error', failed);
    xhr.addEventListener('abort', failed);
    xhr.addEventListener('timeout', failed);
    show(0);
    xhr.send(new FormData(form));
  }

  /** The page the server answered (the form with its messages): its main content replaces this one's. */
  function showAnswer(html) {
    var doc = new DOMParser().parseFromString(html, 'text/html');
    var fresh = doc.getElementById('main');
    var main = document.getElementById('main');
    if (!fresh || !main) return;
    var adopted = document.importNode(fresh, true);
    main.parentNode.replaceChild(adopted, main);
    if (doc.title) document.title = doc.title;
    uploadEnhancer(adopted);
    var errors = document.getElementById('upload-errors');
    if (errors) errors.focus();
  }

  // ---------------------------------------------------------------------------------------------
  // The live batch page

  function liveEnhancer(root) {
    if (!window.EventSource || !window.JSON) return;
    all(root, '[data-live-batch]').forEach(function (strip) {
      if (strip.getAttribute('data-live-state')) return;
      follow(strip);
    });
  }

  function follow(strip) {
    var status = strip.getAttribute('data-live-status');
    var version = strip.getAttribute('data-live-version');
    var note = strip.querySelector('[data-live-note]');
    var announcer = strip.querySelector('[data-live-announce]');
    var lastReload = 0;
    var pendingReload = null;
    var say = function (name) {
      var text = strip.getAttribute('data-text-' + name);
      if (note && text) note.textContent = text;
    };
    var state = function (value) {
      strip.setAttribute('data-live-state', value);
    };
    var reload = function () {
      if (pendingReload) {
        clearTimeout(pendingReload);
        pendingReload = null;
      }
      lastReload = Date.now();
      redraw(strip);
    };
    var reloadSoon = function () {
      if (pendingReload) return;
      var wait = Math.max(0, lastReload + RELOAD_EVERY_MS - Date.now());
      pendingReload = setTimeout(reload, wait);
    };

    var source = new EventSource(strip.getAttribute('data-live-batch'));
    state('connecting');
    source.addEventListener('open', function () {
      state('open');
      say('open');
    });
    source.addEventListener('batch', function (event) {
      var data;
      try {
        data = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      var texts = data.texts || {};
      all(strip, '[data-live]').forEach(function (el) {
        var name = el.getAttribute('data-live');
        if (Object.prototype.hasOwnProperty.call(texts, name)) el.textContent = texts[name];
      });
      strip.setAttribute('data-live-status', data.status);
      if (data.status !== status) {
        status = data.status;
        version = data.version;
        if (announcer) announcer.textContent = data.announce;
        reload();
      } else if (data.version !== version) {
        version = data.version;
        reloadSoon();
      }
    });
    source.addEventListener('end', function (event) {
      source.close();
      var reason = '';
      try {
        reason = JSON.parse(event.data).reason;
      } catch (err) {
        reason = '';
      }
      state('ended');
      strip.setAttribute('data-live-end', reason);
      say(reason === 'final' ? 'ended' : reason === 'paused' ? 'paused' : 'unavailable');
      if (pendingReload) reload();
    });
    source.addEventListener('error', function () {
      if (strip.getAttribute('data-live-state') === 'ended') return;
      if (source.readyState === EventSource.CLOSED) {
        // Refused (too many open, signed out): no more retries.
        state('unavailable');
        say('unavailable');
      } else {
        state('reconnecting');
        say('reconnecting');
      }
    });
  }

  /** The batch page again: the regions that depend on the batch's state, swapped in. */
  function redraw(strip) {
    var page = strip.getAttribute('data-live-page');
    // The page as the user has it (its line filters), unless this is the answer to a POST.
    var url = page && window.location.pathname !== page ? page : window.location.pathname + window.location.search;
    window
      .fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (res) {
        return res.ok ? res.text() : null;
      })
      .then(function (html) {
        if (!html) return;
        var regions = ['batch-live', 'line-results'];
        if (window.htmx && window.htmx.swap) {
          window.htmx.swap('#batch-live', html, { swapStyle: 'outerHTML' }, { select: '#batch-live', selectOOB: '#line-results' });
          return;
        }
        var doc = new DOMParser().parseFromString(html, 'text/html');
        regions.forEach(function (id) {
          var fresh = doc.getElementById(id);
          var old = document.getElementById(id);
          if (fresh && old) old.parentNode.replaceChild(document.importNode(fresh, true), old);
        });
      })
      .catch(function () {
        // The next change tries again; the refresh link is there meanwhile.
      });
  }

  window.OneKhusaConsole.enhance(uploadEnhancer);
  window.OneKhusaConsole.enhance(liveEnhancer);
})();

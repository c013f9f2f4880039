// The console's getting-paid behaviour (issue 19); see console.js for how areas register.
//   [data-expires-at]: the time left to pay a timed account. The page says the expiry in UTC; this
//     shows a clock ([data-countdown-value], mm:ss, every second) and says only a few milestones
//     (the data-say-<seconds> texts: 5 minutes, 1 minute, the end) in its polite live region
//     ([data-countdown-live]), never each second. The time left is counted from data-seconds-left
//     (the server's, by the database clock), so a wrong clock on the phone changes nothing.
//   [data-copy-from]: a button that copies the value of the field it names, and says so in the
//     field's status ([data-copy-status]). Hidden without this script (the field stays selectable).
(function () {
  var TICK_MS = 1000;

  function two(n) {
    return n < 10 ? '0' + n : String(n);
  }

  /** mm:ss, h:mm:ss from an hour (as the page's clockText). */
  function clockText(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    var hours = Math.floor(s / 3600);
    var rest = two(Math.floor((s % 3600) / 60)) + ':' + two(s % 60);
    return hours > 0 ? hours + ':' + rest : rest;
  }

  /** The milestones an element announces (data-say-<seconds>), largest first. */
  function milestonesOf(el) {
    var list = [];
    for (var i = 0; i < el.attributes.length; i++) {
      var match = /^data-say-(\d+)$/.exec(el.attributes[i].name);
      if (match) list.push({ at: Number(match[1]), text: el.attributes[i].value });
    }
    list.sort(function (a, b) {
      return b.at - a.at;
    });
    return list;
  }

  function startCountdown(el) {
    if (el.getAttribute('data-countdown-started')) return;
    el.setAttribute('data-countdown-started', 'true');
    var given = Number(el.getAttribute('data-seconds-left'));
    var leftMs = isFinite(given) && el.getAttribute('data-seconds-left') !== null ? given * 1000 : Date.parse(el.getAttribute('data-expires-at')) - Date.now();
    if (!isFinite(leftMs)) return;
    var deadline = Date.now() + leftMs;
    var clock = el.querySelector('[data-countdown-clock]');
    var value = el.querySelector('[data-countdown-value]');
    var live = el.querySelector('[data-countdown-live]');
    var milestones = milestonesOf(el);
    // Milestones already behind when the page opened are not announced.
    var said = {};
    for (var i = 0; i < milestones.length; i++) if (leftMs / 1000 <= milestones[i].at) said[milestones[i].at] = true;
    if (clock) clock.hidden = false;
    var timer = null;

    function tick() {
      var left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      if (value) value.textContent = clockText(left);
      for (var j = 0; j < milestones.length; j++) {
        var m = milestones[j];
        if (left <= m.at && !said[m.at]) {
          said[m.at] = true;
          if (live) live.textContent = m.text;
        }
      }
      if (left <= 0) {
        el.classList.add('countdown-ended');
        var ended = el.getAttribute('data-expired-text');
        if (value && ended) value.textContent = ended;
        if (timer !== null) window.clearInterval(timer);
        timer = null;
      }
    }

    tick();
    if (Date.now() < deadline) timer = window.setInterval(tick, TICK_MS);
  }

  function say(button, text) {
    var status = document.querySelector('[data-copy-status="' + button.getAttribute('data-copy-from') + '"]');
    if (status) status.textContent = text;
  }

  /** The old way, for browsers without the asynchronous clipboard (or not allowed it). */
  function copyBySelection(field) {
    field.focus();
    field.select();
    try {
      return document.execCommand('copy');
    } catch (err) {
      return false;
    }
  }

  function enableCopy(button) {
    if (button.getAttribute('data-copy-ready')) return;
    var field = document.getElementById(button.getAttribute('data-copy-from'));
    if (!field) return;
    button.setAttribute('data-copy-ready', 'true');
    button.hidden = false;
    button.addEventListener('click', function () {
      var text = field.value;
      var done = function () {
        say(button, button.getAttribute('data-copied-text') || '');
      };
      var failed = function () {
        say(button, button.getAttribute(copyBySelection(field) ? 'data-copied-text' : 'data-copy-failed-text') || '');
      };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, failed);
      else failed();
    });
  }

  window.OneKhusaConsole.enhance(function (root) {
    var clocks = root.querySelectorAll('[data-expires-at]');
    for (var i = 0; i < clocks.length; i++) startCountdown(clocks[i]);
    var buttons = root.querySelectorAll('[data-copy-from]');
    for (var j = 0; j < buttons.length; j++) enableCopy(buttons[j]);
  });
})();

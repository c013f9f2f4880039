// The console's developers behaviour (issue 19); see console.js for how areas register.
//   - Copy buttons: <button data-copy="#id" data-copy-status="#status-id" data-copied="…"
//     data-copy-failed="…" hidden> copies the text of #id with navigator.clipboard.writeText and
//     says so in the live region #status-id. Hidden until this script shows it: without it, the
//     value is plain text to select.
//   - Forms marked data-once are sent once: a second click while the first submission is under way
//     does nothing (the server also answers a resubmitted form key with the first outcome). Coming
//     back to the page from the history lets them be sent again.
(function () {
  function copyText(target) {
    var value = target.value !== undefined && target.tagName === 'INPUT' ? target.value : target.textContent;
    return (value || '').trim();
  }

  function selectText(target) {
    var selection = window.getSelection && window.getSelection();
    if (!selection || !document.createRange) return;
    var range = document.createRange();
    range.selectNodeContents(target);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function enhanceCopy(button) {
    if (button.getAttribute('data-copy-ready') === 'true') return;
    var target = document.querySelector(button.getAttribute('data-copy'));
    var status = document.querySelector(button.getAttribute('data-copy-status'));
    if (!target || !navigator.clipboard || !window.isSecureContext) return;
    button.setAttribute('data-copy-ready', 'true');
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(copyText(target)).then(
        function () {
          if (status) status.textContent = button.getAttribute('data-copied') || '';
        },
        function () {
          selectText(target);
          if (status) status.textContent = button.getAttribute('data-copy-failed') || '';
        }
      );
    });
  }

  function enhanceOnce(form) {
    if (form.getAttribute('data-once-ready') === 'true') return;
    form.setAttribute('data-once-ready', 'true');
    form.addEventListener('submit', function (event) {
      if (form.getAttribute('data-sent') === 'true') {
        event.preventDefault();
        return;
      }
      form.setAttribute('data-sent', 'true');
      form.setAttribute('aria-busy', 'true');
    });
  }

  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    var sent = document.querySelectorAll('form[data-sent]');
    for (var i = 0; i < sent.length; i++) {
      sent[i].removeAttribute('data-sent');
      sent[i].removeAttribute('aria-busy');
    }
  });

  window.OneKhusaConsole.enhance(function (root) {
    var buttons = root.querySelectorAll('button[data-copy]');
    for (var i = 0; i < buttons.length; i++) enhanceCopy(buttons[i]);
    var forms = root.querySelectorAll('form[data-once]');
    for (var j = 0; j < forms.length; j++) enhanceOnce(forms[j]);
  });
})();

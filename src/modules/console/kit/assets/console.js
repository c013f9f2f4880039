// The merchant console's script (assets.ts joins the files of each area after this one). Strict
// mode, no globals but `OneKhusaConsole`, no inline handlers (the CSP allows none): each area looks
// for elements marked with data-* attributes once the page is parsed, and after htmx swaps content.
'use strict';
window.OneKhusaConsole = (function () {
  var enhancers = [];
  function run(root) {
    for (var i = 0; i < enhancers.length; i++) {
      try {
        enhancers[i](root);
      } catch (err) {
        // One area's failure must not stop the others: the page still works without its script.
        if (window.console) window.console.error(err);
      }
    }
  }
  document.addEventListener('DOMContentLoaded', function () {
    run(document);
  });
  document.addEventListener('htmx:afterSwap', function (event) {
    run(event.target);
  });
  return {
    /** Registers fn(root): called with the document, then with each element htmx swaps in. */
    enhance: function (fn) {
      enhancers.push(fn);
    },
  };
})();

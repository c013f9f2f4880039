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

// The sections' menu (layout.tsx): when the sections do not fit one row (a phone), they collapse
// behind the menu button, a real <button> with aria-expanded and aria-controls that opens and
// closes them (Escape closes and gives the focus back to it). Measured again on every resize, so
// that a desk never sees the button and a longer language collapses where it must. Without this
// script the button stays hidden and the row scrolls sideways (console.css).
(function () {
  function setUp() {
    var nav = document.querySelector('nav.sections[data-menu]');
    var button = nav && nav.querySelector('#menu-button');
    var list = button && document.getElementById(button.getAttribute('aria-controls'));
    if (!list) return;
    function setOpen(open) {
      button.setAttribute('aria-expanded', open ? 'true' : 'false');
      nav.classList.toggle('menu-open', open);
    }
    function fit() {
      // Measured as one row (the class removed and put back before the browser paints).
      nav.classList.remove('menu-collapsed');
      var collapsed = list.scrollWidth > list.clientWidth + 1;
      nav.classList.toggle('menu-collapsed', collapsed);
      if (!collapsed) setOpen(false);
    }
    button.hidden = false;
    button.addEventListener('click', function () {
      setOpen(button.getAttribute('aria-expanded') !== 'true');
    });
    nav.addEventListener('keydown', function (event) {
      if (event.key === 'Escape' && button.getAttribute('aria-expanded') === 'true') {
        setOpen(false);
        button.focus();
      }
    });
    window.addEventListener('resize', fit);
    fit();
  }
  document.addEventListener('DOMContentLoaded', setUp);
})();

/* Phones and tablets (below 992 px): the article header's ☰ and contents buttons open the drawers.

   pydata-sphinx-theme 0.17 writes a hidden .primary-toggle and .secondary-toggle of its own into
   #pst-header and binds its drawer handler with document.querySelector(".primary-toggle"), which finds
   that hidden button first; sphinx-book-theme's visible buttons in the article header got no listener,
   so a tap on them only showed a tooltip (pydata/pydata-sphinx-theme#2451,
   executablebooks/sphinx-book-theme#988). A click on a visible button is passed on to the theme's
   hidden one, whose handler opens dialog#pst-primary-sidebar-modal or dialog#pst-secondary-sidebar-modal.
   From 992 px up nothing changes (the sidebars are on the page there).

   Remove this file, and its line in _config.yml (html_js_files), when the themes pinned by the build
   bind every toggle (either issue fixed): tests/site/test_phone_reading.py's
   test_without_the_fix_the_theme_toggles_do_nothing then fails and says so. */
(() => {
  const WIDE = window.matchMedia("(min-width: 992px)");
  document.addEventListener(
    "click",
    (event) => {
      if (WIDE.matches || !(event.target instanceof Element)) return;
      for (const kind of ["primary-toggle", "secondary-toggle"]) {
        const visible = event.target.closest(`.${kind}`);
        if (!visible || visible.closest("#pst-header")) continue;
        const theirs = document.querySelector(`#pst-header .${kind}`);
        if (!theirs) return; // a theme without the hidden duplicate: leave the click alone
        event.preventDefault();
        event.stopPropagation();
        theirs.click(); // the theme remembers the focused button and gives focus back on close
        window.bootstrap?.Tooltip?.getInstance(visible)?.hide();
        return;
      }
    },
    true,
  );
})();

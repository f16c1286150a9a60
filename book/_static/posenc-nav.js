/* Phones and tablets (below 992 px): the article header's ☰ and contents buttons open the drawers.

   pydata-sphinx-theme 0.17 writes a hidden .primary-toggle and .secondary-toggle of its own into
   #pst-header and binds its drawer handler with document.querySelector(".primary-toggle"), which finds
   that hidden button first; sphinx-book-theme's visible buttons in the article header got no listener,
   so a tap on them only showed a tooltip (pydata/pydata-sphinx-theme#2451,
   executablebooks/sphinx-book-theme#988). A click on a visible button is passed on to the theme's
   hidden one, whose handler opens dialog#pst-primary-sidebar-modal or dialog#pst-secondary-sidebar-modal.
   From 992 px up nothing changes (the sidebars are on the page there).

   Remove this first part when the themes pinned by the build bind every toggle (either issue fixed):
   tests/site/test_phone_reading.py's test_without_the_fix_the_theme_toggles_do_nothing then fails and
   says so. The parts below it (issue 32: the header's measured height, the Fullscreen button, the
   edition switch that keeps the reader's place) stay; tests/site/test_header.py tests them. */
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

/* Anchors land below the header (the site review, site.md #5). The theme's scroll-padding-top was a
   fixed 4rem, shorter than a header that wraps (93 px on a phone, before issue 32), taller than one that
   does not: the height the sticky headers cover is measured here, whenever one of them changes size,
   and kept in --posenc-header-height (posenc-header.css makes it the article's scroll-margin-top). */
(() => {
  const HEADERS = "#pst-header, .bd-header-article";
  const root = document.documentElement;
  const measure = () => {
    let covered = 0;
    for (const header of document.querySelectorAll(HEADERS)) {
      const style = getComputedStyle(header);
      if (style.display === "none" || !["sticky", "fixed"].includes(style.position)) continue;
      const top = parseFloat(style.top);
      covered = Math.max(covered, (Number.isFinite(top) ? top : 0) + header.getBoundingClientRect().height);
    }
    root.style.setProperty("--posenc-header-height", `${Math.ceil(covered)}px`);
  };
  measure();
  if ("ResizeObserver" in window) {
    const observer = new ResizeObserver(measure);
    document.querySelectorAll(HEADERS).forEach((header) => observer.observe(header));
  }
  window.addEventListener("resize", measure);
})();

/* The Fullscreen button where the browser has no fullscreen for a page (iOS Safari): it did nothing. */
(() => {
  if (document.fullscreenEnabled || document.webkitFullscreenEnabled) return;
  document.querySelectorAll(".btn-fullscreen-button").forEach((button) => (button.hidden = true));
})();

/* The edition switch (tools/posenc_book/templates/lang-switch.html) keeps the reader's place.

   The editions have the same sections in the same order (tests/book/test_parity.py), but their ids
   are made from the translated headings. So the switch link carries the position of the section at
   the top of the screen ("#posenc-section=3.2": the third section of the page's title section, its
   second subsection), and the twin page, on load, finds its own section at that position and puts
   its real id in the address. Without a script the link opens the twin page at its top. The menu
   (a <details>) closes on Escape and on a tap outside it. */
(() => {
  const PREFIX = "#posenc-section=";
  const article = () => document.querySelector("article.bd-article");
  // The page's sections: those with a heading of their own (sphinx-proof writes a <section
  // id="proof-content"> into each proof, which is no section of the outline). A section's id is on
  // its heading (posenc_book.sphinx.search_marks moves it there for the search), except the page's.
  const headingOf = (node) => [...node.children].find((child) => /^H[1-6]$/.test(child.tagName));
  const isSection = (node) => Boolean(headingOf(node));
  const anchorOf = (section) => (section.id ? section : headingOf(section));
  const sections = (root) => [...(root?.querySelectorAll("section") ?? [])].filter(isSection);
  const parentOf = (section) => {
    let node = section.parentElement.closest("section, article");
    while (node && node.tagName === "SECTION" && !isSection(node)) {
      node = node.parentElement.closest("section, article");
    }
    return node;
  };
  // The sections directly inside ``parent`` (a section, or the article), in document order.
  const subsections = (parent) => sections(parent).filter((section) => parentOf(section) === parent);
  const headerBottom = () =>
    parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--posenc-header-height")) || 0;

  // The deepest section that holds the first line of text below the header: the one the reader is in
  // (a heading reached through a link sits 0.5rem below the header: scroll-padding-top).
  const sectionAtTop = () => {
    const y = headerBottom() + 24;
    let found = null;
    for (const section of sections(article())) {
      const box = section.getBoundingClientRect();
      if (box.top <= y && box.bottom > y) found = section;
    }
    return found;
  };
  const positionOf = (section) => {
    const path = [];
    for (let node = section; node && node !== article(); ) {
      const parent = parentOf(node);
      path.unshift(subsections(parent).indexOf(node) + 1);
      node = parent;
    }
    return path;
  };
  const sectionAt = (path) => {
    let node = article(), found = null;
    for (const index of path) {
      node = subsections(node)[index - 1];
      if (!node) break;
      found = node; // a twin with fewer sections: the deepest one that exists
    }
    return found;
  };

  document.addEventListener(
    "click",
    (event) => {
      const link = event.target instanceof Element && event.target.closest("a.lang-switch[hreflang]");
      if (!link || link.getAttribute("aria-current")) return;
      const section = sectionAtTop();
      const path = section ? positionOf(section) : [];
      // The page's title section (path of length 1) is its top: the plain link says that already.
      const url = new URL(link.href);
      url.hash = path.length > 1 ? PREFIX.slice(1) + path.join(".") : "";
      link.href = url.href;
    },
    true,
  );

  if (location.hash.startsWith(PREFIX)) {
    const path = location.hash.slice(PREFIX.length).split(".").map(Number);
    const section = path.every((n) => n > 0) ? sectionAt(path) : null;
    const target = section && anchorOf(section);
    history.replaceState(history.state, "", target?.id ? `#${target.id}` : location.pathname + location.search);
    target?.scrollIntoView();
  }

  const menus = () => document.querySelectorAll("details.lang-switch-menu[open]");
  document.addEventListener("click", (event) => {
    for (const menu of menus()) if (!menu.contains(event.target)) menu.open = false;
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const menu of menus()) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
})();

/* Touch screens: no tooltips, and the page outline closes once a section is picked.

   The theme gives every header button a Bootstrap tooltip that opens on focus and hover. A tap both
   focuses and "hovers" a button, and nothing unhovers it on a touch screen, so the tooltip stayed over
   the header (the site review of issue 32: one covered the edition switch and swallowed a tap). The
   buttons carry their names as aria-label and title, so nothing is lost. Bootstrap asks before it shows
   one (the cancelable show.bs.tooltip event). The outline drawer (dialog#pst-secondary-sidebar-modal)
   stayed open over three quarters of a phone's screen after a tap on a section: it now closes, and the
   page scrolls to the section as before. */
(() => {
  const NO_HOVER = window.matchMedia("(hover: none)");
  document.addEventListener(
    "show.bs.tooltip",
    (event) => {
      if (NO_HOVER.matches) event.preventDefault();
    },
    true,
  );
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element && event.target.closest('a[href^="#"]');
    const dialog = link && link.closest("dialog#pst-secondary-sidebar-modal");
    if (dialog?.open) dialog.close();
  });
})();

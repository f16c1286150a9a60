// Draws the book's interactive figures (made by posenc.plot.interactive) with the vendored plotly.js,
// which it loads only when a figure comes near the screen (posenc_book.sphinx.interactive_figures). Each
// figure gets a labelled range input under it, which the keyboard and screen readers can move;
// plotly's own slider, kept in the figure JSON for a running notebook, is hidden here so that the
// page shows one slider, not two.
"use strict";
(function () {
  // A title wider than the figure is cut off at both ends. Its lines are measured in the title's own
  // font (a Hangul syllable is about twice as wide as a Latin letter, so no per-character guess fits
  // both), broken at spaces, and the font is made smaller if one word alone is still too wide.
  let canvas = null;
  function textWidth(text, font) {
    canvas = canvas || document.createElement("canvas");
    const context = canvas.getContext("2d");
    context.font = font.size + "px " + font.family;
    return context.measureText(text.replace(/<[^>]+>/g, "")).width;
  }

  // The title's words: spaces inside brackets do not break a line, so "PE(p + k)" stays whole.
  function words(part) {
    const found = [];
    let depth = 0;
    let word = "";
    for (const character of part) {
      if (character === " " && depth === 0) {
        found.push(word);
        word = "";
        continue;
      }
      if ("([{".includes(character)) depth += 1;
      if (")]}".includes(character)) depth = Math.max(0, depth - 1);
      word += character;
    }
    found.push(word);
    return found;
  }

  function fittedTitle(text, font, room) {
    const lines = [];
    for (const part of text.split("<br>")) {
      let line = "";
      for (const word of words(part)) {
        const longer = line ? line + " " + word : word;
        if (line && textWidth(longer, font) > room) {
          lines.push(line);
          line = word;
        } else {
          line = longer;
        }
      }
      lines.push(line);
    }
    const widest = Math.max.apply(null, lines.map(function (line) { return textWidth(line, font); }));
    return { text: lines.join("<br>"), lines: lines.length, widest: widest };
  }

  // After plotly has drawn (its full layout knows the title's font and the figure's width), the title
  // is re-laid out if it does not fit; the added lines get room at the top.
  function fitTitle(plot) {
    const full = plot._fullLayout;
    const title = plot.layout.title;
    if (!full || !title || !title.text) return Promise.resolve();
    // The title as the figure gave it, kept for a later fit (a phone turned sideways is wider).
    const original = plot.dataset.title || title.text;
    const size = Number(plot.dataset.titleSize || full.title.font.size);
    plot.dataset.title = original;
    plot.dataset.titleSize = size;
    const room = full.width - 20;
    let font = { family: full.title.font.family, size: size };
    let fitted = fittedTitle(original, font, room);
    while (fitted.widest > room && font.size > 10) {
      font = { family: font.family, size: font.size - 1 };
      fitted = fittedTitle(original, font, room);
    }
    const added = fitted.lines - original.split("<br>").length;
    const shown = plot.dataset.titleAdded ? Number(plot.dataset.titleAdded) : 0;
    if (fitted.text === title.text && font.size === full.title.font.size) return Promise.resolve();
    plot.dataset.titleAdded = added;
    const step = Math.ceil(font.size * 1.3);
    return Plotly.relayout(plot, {
      "title.text": fitted.text,
      "title.font.size": font.size,
      "margin.t": full.margin.t + step * (added - shown),
      height: full.height + step * (added - shown),
    });
  }

  // The figure scrolls with the page: a swipe that starts on it is the browser's (touch-action in
  // posenc-figures.css), plotly draws no zoom box and lets no axis move. The slider changes the data.
  function staticAxes(layout) {
    layout.dragmode = false;
    layout.xaxis = layout.xaxis || {};
    layout.yaxis = layout.yaxis || {};
    Object.keys(layout).forEach(function (key) {
      if (/^[xy]axis\d*$/.test(key)) layout[key].fixedrange = true;
    });
  }

  // Colours from the theme (pydata-sphinx-theme's CSS variables), so that the figure follows light
  // and dark mode, "auto" included: the theme sets html[data-theme] to the mode it shows.
  function themeColours() {
    const style = getComputedStyle(document.documentElement);
    function variable(name, fallback) {
      return style.getPropertyValue(name).trim() || fallback;
    }
    return {
      text: variable("--pst-color-text-base", "#444"),
      muted: variable("--pst-color-text-muted", "#666"),
      border: variable("--pst-color-border", "#ddd"),
    };
  }

  function themeUpdate(layout) {
    const colours = themeColours();
    const update = {
      paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)",
      "font.color": colours.text,
      "legend.bgcolor": "rgba(0,0,0,0)",
    };
    Object.keys(layout).forEach(function (key) {
      if (!/^[xy]axis\d*$/.test(key)) return;
      update[key + ".gridcolor"] = colours.border;
      update[key + ".linecolor"] = colours.muted;
      update[key + ".zerolinecolor"] = colours.muted;
    });
    (layout.annotations || []).forEach(function (_, n) {
      update["annotations[" + n + "].font.color"] = colours.text;
    });
    return update;
  }

  function applyTheme(layout) {
    const update = themeUpdate(layout);
    Object.keys(update).forEach(function (path) {
      const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".");
      let target = layout;
      keys.slice(0, -1).forEach(function (key) {
        target[key] = target[key] || {};
        target = target[key];
      });
      target[keys[keys.length - 1]] = update[path];
    });
  }

  const drawnPlots = [];
  function followTheme() {
    // A phone turned sideways gives the title a new width.
    let waiting = null;
    window.addEventListener("resize", function () {
      clearTimeout(waiting);
      waiting = setTimeout(function () { drawnPlots.forEach(fitTitle); }, 200);
    });
    new MutationObserver(function () {
      drawnPlots.forEach(function (plot) { Plotly.relayout(plot, themeUpdate(plot.layout)); });
    }).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  }

  function draw(container) {
    const figure = JSON.parse(container.querySelector("script.posenc-figure-data").textContent);
    const plot = container.querySelector(".posenc-plot");
    const slider = figure.layout.sliders[0];
    const steps = slider.steps;
    const prefix = (slider.currentvalue || {}).prefix || "";
    const space = Number(container.dataset.sliderSpace || 0);
    slider.visible = false;
    figure.layout.margin.b -= space;
    figure.layout.height -= space;
    staticAxes(figure.layout);
    applyTheme(figure.layout);
    const config = Object.assign({}, figure.config, { scrollZoom: false, doubleClick: false });

    const id = container.id + "-slider";
    const controls = document.createElement("div");
    controls.className = "posenc-slider";
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = container.dataset.label;
    const input = document.createElement("input");
    Object.assign(input, { type: "range", id: id, min: 0, max: steps.length - 1, step: 1 });
    input.value = slider.active || 0;
    const output = document.createElement("output");
    output.htmlFor = id;
    function show(index) {
      const text = prefix + steps[index].label;
      output.textContent = text;
      input.setAttribute("aria-valuetext", text);
    }
    show(Number(input.value));
    input.addEventListener("input", function () {
      const index = Number(input.value);
      show(index);
      const [update, traces] = steps[index].args;
      Plotly.restyle(plot, update, traces);
    });
    controls.append(label, input, output);

    // The PNG frame stays until plotly has drawn: readers without JavaScript keep it.
    const picture = plot.querySelector("img");
    Plotly.newPlot(plot, figure.data, figure.layout, config).then(function () {
      if (picture) picture.remove();
      container.append(controls);
      if (!drawnPlots.length) followTheme();
      drawnPlots.push(plot);
      return fitTitle(plot);
    });
  }

  // plotly.js (1.2 MB) is loaded once, when the first figure comes within a screen's height of view.
  let plotly = null;
  function loadPlotly(url) {
    if (!plotly) {
      plotly = new Promise(function (resolve, reject) {
        const script = document.createElement("script");
        script.src = url;
        script.onload = resolve;
        script.onerror = reject;
        document.head.append(script);
      });
    }
    return plotly;
  }

  function drawAll() {
    const figures = document.querySelectorAll(".posenc-interactive");
    const drawn = new Set();
    function start(container) {
      if (drawn.has(container)) return;
      drawn.add(container);
      loadPlotly(container.dataset.plotly).then(function () { draw(container); });
    }
    if (!("IntersectionObserver" in window)) {
      figures.forEach(start);
      return;
    }
    const observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) {
          observer.unobserve(entry.target);
          start(entry.target);
        }
      });
    }, { rootMargin: "100% 0px" });
    figures.forEach(function (figure) { observer.observe(figure); });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();

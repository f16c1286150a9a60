// Draws the book's interactive figures (made by posenc.plot.interactive) with the vendored plotly.js,
// which it loads only when a figure comes near the screen (posenc_book.sphinx.interactive_figures). Each
// figure gets a labelled range input under it, which the keyboard and screen readers can move;
// plotly's own slider, kept in the figure JSON for a running notebook, is hidden here so that the
// page shows one slider, not two.
"use strict";
(function () {
  // A title that is wider than a phone's screen is cut off at both ends: break its lines at spaces
  // (about 7.5 px a character at the theme's size) and give the extra lines room at the top.
  function fitTitle(layout, width) {
    const title = layout.title;
    if (!title || !title.text || !width) return;
    const room = Math.max(20, Math.floor(width / 7.5));
    const lines = [];
    for (const part of title.text.split("<br>")) {
      let line = "";
      for (const word of part.split(" ")) {
        if (line && (line + " " + word).replace(/<[^>]+>/g, "").length > room) {
          lines.push(line);
          line = word;
        } else {
          line = line ? line + " " + word : word;
        }
      }
      lines.push(line);
    }
    const added = lines.length - title.text.split("<br>").length;
    if (added <= 0) return;
    title.text = lines.join("<br>");
    layout.margin.t += 18 * added;
    layout.height += 18 * added;
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
    fitTitle(figure.layout, plot.clientWidth || container.clientWidth);

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
    Plotly.newPlot(plot, figure.data, figure.layout, figure.config).then(function () {
      if (picture) picture.remove();
      container.append(controls);
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

// The replay page: unpack the frames (deflate + base64, inline), then step through them.
// FAILED (set by the page) is the transcript position of the first invalid message, or null.
(async () => {
  const $ = (id) => document.getElementById(id);
  const bytes = Uint8Array.from(atob($("frames").textContent.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  const data = JSON.parse(await new Response(stream).text());
  const steps = data.steps;
  const slider = $("slider");
  slider.max = steps.length - 1;

  // the log: every sentence once, each tagged with its step
  const log = $("log");
  const items = [];
  steps.forEach((s, i) => {
    items[i] = [];
    for (const line of s.log) {
      const li = document.createElement("li");
      li.textContent = line;
      li.dataset.step = i;
      li.addEventListener("click", () => show(i));
      log.appendChild(li);
      items[i].push(li);
    }
  });
  if (FAILED !== null) {
    const li = document.createElement("li");
    li.className = "failed";
    li.textContent = `message #${FAILED} is invalid: the game cannot be replayed past it (see the badge)`;
    log.appendChild(li);
  }

  let now = -1, timer = null;
  function show(i) {
    i = Math.max(0, Math.min(steps.length - 1, i));
    if (now >= 0) items[now].forEach((li) => li.classList.remove("now"));
    now = i;
    $("board").innerHTML = data.pictures[steps[i].svg];
    slider.value = i;
    $("stepno").textContent = `step ${i} of ${steps.length - 1} (message #${steps[i].message})`;
    items[i].forEach((li) => li.classList.add("now"));
    // the result only at the last step (no spoiler); the log scrolls itself, never the window
    $("result").hidden = i !== steps.length - 1;
    if (items[i].length) {
      const li = items[i][0];
      if (li.offsetTop < log.scrollTop + log.offsetTop || li.offsetTop > log.scrollTop + log.offsetTop + log.clientHeight - 30)
        log.scrollTop = li.offsetTop - log.offsetTop - log.clientHeight / 2;
    }
  }
  function play() {
    if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶ play"; return; }
    if (now >= steps.length - 1) show(0);
    $("play").textContent = "⏸ pause";
    timer = setInterval(() => { if (now >= steps.length - 1) play(); else show(now + 1); }, 400);
  }
  $("first").onclick = () => show(0);
  $("prev").onclick = () => show(now - 1);
  $("next").onclick = () => show(now + 1);
  $("last").onclick = () => show(steps.length - 1);
  $("play").onclick = play;
  slider.oninput = () => show(Number(slider.value));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") show(now - 1);
    else if (e.key === "ArrowRight") show(now + 1);
    else if (e.key === " ") { e.preventDefault(); play(); }
  });
  const THEMES = ["system", "light", "dark"];
  let theme = 0;
  $("theme").onclick = () => {
    theme = (theme + 1) % 3;
    document.documentElement.classList.remove("light", "dark");
    if (THEMES[theme] !== "system") document.documentElement.classList.add(THEMES[theme]);
    $("theme").textContent = "theme: " + THEMES[theme];
  };
  show(0);
})();

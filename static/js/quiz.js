// Progressive enhancement of quizzes and the exam; every quiz works without this file.
(function () {
  "use strict";

  var ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9][A-Za-z0-9_+-]*){0,2}$/;
  var THRESHOLDS = [300, 60, 0];  // seconds left at which the status line speaks

  // Pages made without this file print times in the zone the browser reported here, else in UTC. The name is
  // sent as it is: IANA names hold only characters a cookie value may.
  function rememberZone() {
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (error) { return; }
    if (!zone || zone.length > 64 || !ZONE_NAME.test(zone)) { return; }
    var cookie = "tz=" + zone;
    if (document.cookie.split("; ").indexOf(cookie) !== -1) { return; }
    document.cookie = cookie + "; path=/; max-age=31536000; SameSite=Lax" +
      (window.location.protocol === "https:" ? "; Secure" : "");
  }

  // The end of a timed attempt in this browser's own zone and clock format, with the zone's name.
  function localiseEndTimes() {
    var times = document.querySelectorAll("time.quiz-end-time");
    if (!times.length) { return; }  // a formatter costs its locale's data: only where a time is shown
    var format;
    try {
      format = new Intl.DateTimeFormat(document.documentElement.lang || undefined,
        { hour: "numeric", minute: "2-digit", timeZoneName: "short" });
    } catch (error) { return; }
    times.forEach(function (time) {
      var moment = new Date(time.getAttribute("datetime"));
      if (!isNaN(moment.getTime())) { time.textContent = format.format(moment); }
    });
  }

  function clock(seconds) {
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = seconds % 60;
    var tail = (rest < 10 ? "0" : "") + rest;
    if (hours > 0) { return hours + ":" + (minutes < 10 ? "0" : "") + minutes + ":" + tail; }
    return minutes + ":" + tail;
  }

  // Below the header where it sticks (it wraps to more lines in some languages and widths).
  function keepBelowHeader(timer) {
    var header = document.querySelector(".site-header");
    function place() {
      var sticky = header && window.getComputedStyle(header).position === "sticky";
      timer.style.setProperty("--quiz-timer-top", (sticky ? header.getBoundingClientRect().height : 0) + "px");
    }
    place();
    window.addEventListener("resize", place);
  }

  // The countdown starts from the seconds the server counted when it made the page, so a device whose clock is
  // wrong still shows the right time left; the server closes the attempt at its deadline whatever this shows.
  function countDown(timer) {
    var total = Number(timer.getAttribute("data-seconds-left"));
    var left = timer.querySelector(".quiz-timer-left");
    var status = document.getElementById("quiz-timer-status");
    if (!isFinite(total) || !left) { return; }
    var started = window.performance.now();
    var previous = total;
    var ended = false;

    function announce(remaining) {
      THRESHOLDS.forEach(function (threshold) {
        // Only when the count crosses a threshold: a page opened with 4 minutes left does not say "5 minutes".
        if (status && remaining <= threshold && previous > threshold) {
          status.textContent = timer.getAttribute("data-announce-" + threshold) || "";
        }
      });
      previous = remaining;
    }

    function end() {
      ended = true;
      timer.classList.add("is-over");
      var link = document.createElement("a");
      link.href = timer.getAttribute("data-result-url");
      link.textContent = timer.getAttribute("data-over");
      left.textContent = "";
      left.appendChild(link);
    }

    function tick() {
      var elapsed = (window.performance.now() - started) / 1000;
      var remaining = Math.max(0, Math.ceil(total - elapsed));
      announce(remaining);
      if (remaining === 0) {
        if (!ended) { end(); }
        return;
      }
      timer.classList.toggle("is-low", remaining <= THRESHOLDS[0]);
      left.textContent = timer.getAttribute("data-left").replace("{time}", clock(remaining));
      // Wake just after the next whole second (timers drift, and background tabs run them late).
      window.setTimeout(tick, Math.max(50, ((total - elapsed) % 1) * 1000 + 20));
    }
    tick();
  }

  if (document.querySelector(".quiz-page")) { rememberZone(); }
  localiseEndTimes();
  var timer = document.getElementById("quiz-timer");
  if (timer) {
    keepBelowHeader(timer);
    countDown(timer);
  }
})();

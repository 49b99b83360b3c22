/*
 * Timed write runs inside the page, over `window.lp` (long_poll.js) or `window.ws`
 * (websocket.js). `window.bench` is its API:
 *
 *   bench.start(id, transport, name, workload, timeoutMs)
 *       transport "lp" or "ws"; name a connected connection; workload {big: {parts, characters}}
 *       (one put of /bench/big: `parts` strings of `characters` each) or {small: count} (`count`
 *       puts of /bench/w/<i> = i, all sent at once). Builds the messages, then times from just
 *       before the first send until a response to every request has arrived.
 *   bench.result(id)
 *       {done, failed, seconds, answered, expected, notOk, firstNotOk}
 *
 * Responses over WebSocket are seen as they arrive; long-polling's, by looking at the messages
 * every few milliseconds (setTimeout's clamp, ~4 ms).
 */
(function () {
  "use strict";

  var runs = {};

  function workloadMessages(workload) {
    if (workload.big) {
      var value = {};
      for (var i = 0; i < workload.big.parts; i++) {
        value["part" + i] = String.fromCharCode(97 + (i % 26)).repeat(workload.big.characters);
      }
      return [{ t: "d", d: { r: 1, a: "p", b: { p: "/bench/big", d: value } } }];
    }
    var messages = [];
    for (var n = 0; n < workload.small; n++) {
      messages.push({ t: "d", d: { r: n + 1, a: "p", b: { p: "/bench/w/" + n, d: n } } });
    }
    return messages;
  }

  window.bench = {
    start: function (id, transport, name, workload, timeoutMs) {
      var api = transport === "lp" ? window.lp : window.ws;
      var messages = workloadMessages(workload);
      var waiting = {};
      for (var i = 0; i < messages.length; i++) waiting[messages[i].d.r] = true;
      var run = runs[id] = {
        done: false, failed: null, seconds: null, answered: 0, expected: messages.length, notOk: 0, firstNotOk: null,
      };
      var seen = api.messages(name).length;
      var started;

      function take(message) {
        if (run.done || !message || message.t !== "d" || !message.d || !waiting[message.d.r]) return;
        delete waiting[message.d.r];
        run.answered += 1;
        if (!message.d.b || message.d.b.s !== "ok") {
          run.notOk += 1;
          if (run.firstNotOk === null) run.firstNotOk = message.d.b;
        }
        if (run.answered === run.expected) {
          run.seconds = (performance.now() - started) / 1000;
          run.done = true;
        }
      }

      function check() {
        if (run.done) return;
        if (transport === "lp") {
          var fresh = api.messages(name, seen);
          seen += fresh.length;
          for (var k = 0; k < fresh.length; k++) take(fresh[k]);
          if (run.done) return;
        }
        var state = api.state(name);
        if (state.state === "closed") {
          run.failed = "the connection closed: " + state.closeReason + " (" + run.answered + " of " + run.expected + " answered)";
          run.done = true;
        } else if (performance.now() - started > timeoutMs) {
          run.failed = "not within " + timeoutMs + " ms (" + run.answered + " of " + run.expected + " answered)";
          run.done = true;
        } else {
          setTimeout(check, transport === "lp" ? 1 : 20);
        }
      }

      if (transport === "ws") api.subscribe(name, take);
      started = performance.now();
      for (var m = 0; m < messages.length; m++) api.send(name, messages[m]);
      setTimeout(check, 0);
    },
    result: function (id) {
      return runs[id] || null;
    },
  };
})();

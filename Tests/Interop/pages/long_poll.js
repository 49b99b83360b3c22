/*
 * A long-polling realtime client for Hearth's `/.lp` (protocol §3.9), using only what a page
 * has: script tags loaded in a hidden frame that call back into this window, and a hidden
 * disconnect frame whose removal ends the session. `window.lp` is its API:
 *
 *   lp.open(name, hearthURL, namespace)  starts a connection, returns its callback number
 *   lp.send(name, message)               queues one message, returns how many segments it took
 *   lp.messages(name, from)              the messages delivered so far, in packet order
 *   lp.state(name)                       connected?, session id, polls, close reason, …
 *   lp.close(name)                       leaves: removes the disconnect frame and script frame
 *   lp.errors()                          script errors seen by the page
 */
(function () {
  "use strict";

  var CHUNK_CHARACTERS = 1840;
  var URL_DATA_CHARACTERS = 1870;
  var SEGMENT_OVERHEAD = 30;
  var POLL_PATIENCE_MS = 25000;

  var connections = {};
  var errors = [];
  var nextCallback = 1 + Math.floor(Math.random() * 100000);

  function recordErrors(target, where) {
    target.addEventListener("error", function (event) {
      errors.push(where + ": " + event.message);
      render();
    });
  }

  recordErrors(window, "page");

  function randomSerial() {
    return Math.floor(Math.random() * 100000000);
  }

  function websafeBase64(text) {
    var bytes = new TextEncoder().encode(text);
    var binary = "";
    for (var i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, ".");
  }

  function hiddenFrame() {
    var frame = document.createElement("iframe");
    frame.style.display = "none";
    document.body.appendChild(frame);
    return frame;
  }

  function Connection(name, hearthURL, namespace) {
    var self = this;
    this.name = name;
    this.endpoint = hearthURL.replace(/\/+$/, "") + "/.lp?";
    this.namespace = namespace;
    this.callback = String(nextCallback++);
    this.state = "connecting";
    this.id = null;
    this.password = null;
    this.sessionId = null;
    this.messages = [];
    this.packets = {};
    this.nextPacket = 0;
    this.lastPacket = null;
    this.pending = [];
    this.nextSegment = 0;
    this.serial = randomSerial();
    this.outstanding = 0;
    this.mostOutstanding = 0;
    this.polls = 0;
    this.disconnectFrame = null;
    this.disconnectFrameLoaded = false;
    this.closeReason = null;

    this.scriptFrame = hiddenFrame();
    var doc = this.scriptFrame.contentWindow.document;
    doc.open();
    doc.write("<html><body></body></html>");
    doc.close();
    recordErrors(this.scriptFrame.contentWindow, name + "'s script frame");

    window["pLPCommand" + this.callback] = function (command, first, second) {
      self.onCommand(command, first, second);
    };
    window["pRTLPCB" + this.callback] = function (number, messages) {
      self.onPacket(number, messages);
    };
    this.addScript(this.url({ start: "t", ser: randomSerial(), cb: this.callback, v: "5" }), function () {});
  }

  Connection.prototype.url = function (params) {
    params.ns = this.namespace;
    return this.endpoint + Object.keys(params).map(function (key) {
      return key + "=" + encodeURIComponent(params[key]);
    }).join("&");
  };

  Connection.prototype.addScript = function (url, loaded) {
    var self = this;
    var doc = this.scriptFrame.contentWindow.document;
    var script = doc.createElement("script");
    script.async = true;
    script.src = url;
    script.onload = function () {
      script.onload = script.onerror = null;
      script.remove();
      loaded();
    };
    script.onerror = function () {
      self.shutdown("a script did not load: " + url.slice(0, 160));
    };
    doc.body.appendChild(script);
  };

  Connection.prototype.onCommand = function (command, first, second) {
    if (this.state === "closed") return;
    if (command === "start") {
      this.id = first;
      this.password = second;
    } else if (command === "close") {
      if (first === undefined || first === null) {
        this.shutdown("the server closed the connection");
      } else {
        this.lastPacket = Number(first);
        this.closeIfDone();
      }
    } else {
      errors.push(this.name + ": unknown command " + command);
    }
    render();
  };

  Connection.prototype.onPacket = function (number, messages) {
    if (this.state === "closed") return;
    this.packets[number] = messages;
    while (Object.prototype.hasOwnProperty.call(this.packets, this.nextPacket)) {
      var packet = this.packets[this.nextPacket];
      delete this.packets[this.nextPacket];
      this.nextPacket += 1;
      for (var i = 0; i < packet.length; i++) this.deliver(packet[i]);
    }
    this.closeIfDone();
    render();
  };

  Connection.prototype.closeIfDone = function () {
    if (this.lastPacket !== null && this.nextPacket > this.lastPacket) {
      this.shutdown("the server closed the connection after packet " + this.lastPacket);
    }
  };

  Connection.prototype.deliver = function (message) {
    this.messages.push(message);
    var control = message && message.t === "c" ? message.d : null;
    if (this.state === "connecting" && control && control.t === "h") {
      this.state = "connected";
      this.sessionId = control.d.s;
      this.addDisconnectFrame();
      this.newRequest();
    }
  };

  Connection.prototype.addDisconnectFrame = function () {
    var self = this;
    var frame = document.createElement("iframe");
    frame.style.display = "none";
    frame.onload = function () {
      self.disconnectFrameLoaded = true;
      render();
    };
    frame.src = this.url({ dframe: "t", id: this.id, pw: this.password });
    document.body.appendChild(frame);
    this.disconnectFrame = frame;
  };

  Connection.prototype.newRequest = function () {
    while (this.state === "connected" && this.lastPacket === null &&
           this.outstanding < (this.pending.length ? 2 : 1)) {
      var url = this.url({ id: this.id, pw: this.password, ser: this.serial++ });
      var data = 0, index = 0;
      while (this.pending.length &&
             data + this.pending[0].chunk.length + SEGMENT_OVERHEAD <= URL_DATA_CHARACTERS) {
        var segment = this.pending.shift();
        url += "&seg" + index + "=" + segment.number + "&ts" + index + "=" + segment.count + "&d" + index + "=" + segment.chunk;
        data += segment.chunk.length + SEGMENT_OVERHEAD;
        index += 1;
      }
      this.poll(url);
    }
  };

  Connection.prototype.poll = function (url) {
    var self = this;
    var finished = false;
    function finish() {
      if (finished) return;
      finished = true;
      clearTimeout(patience);
      self.outstanding -= 1;
      self.newRequest();
      render();
    }
    var patience = setTimeout(finish, POLL_PATIENCE_MS);
    this.outstanding += 1;
    this.polls += 1;
    this.mostOutstanding = Math.max(this.mostOutstanding, this.outstanding);
    this.addScript(url, finish);
  };

  Connection.prototype.send = function (message) {
    var encoded = websafeBase64(JSON.stringify(message));
    var count = Math.max(1, Math.ceil(encoded.length / CHUNK_CHARACTERS));
    for (var i = 0; i < count; i++) {
      this.pending.push({
        number: this.nextSegment++,
        count: count,
        chunk: encoded.slice(i * CHUNK_CHARACTERS, (i + 1) * CHUNK_CHARACTERS),
      });
    }
    this.newRequest();
    render();
    return count;
  };

  Connection.prototype.shutdown = function (reason) {
    if (this.state === "closed") return;
    this.state = "closed";
    this.closeReason = reason;
    if (this.disconnectFrame) this.disconnectFrame.remove();
    this.scriptFrame.remove();
    render();
  };

  Connection.prototype.snapshot = function () {
    return {
      name: this.name,
      callback: this.callback,
      state: this.state,
      connected: this.state === "connected",
      id: this.id,
      sessionId: this.sessionId,
      messageCount: this.messages.length,
      polls: this.polls,
      outstanding: this.outstanding,
      mostOutstanding: this.mostOutstanding,
      pendingSegments: this.pending.length,
      segmentsQueued: this.nextSegment,
      disconnectFrameLoaded: this.disconnectFrameLoaded,
      disconnectFramePresent: !!(this.disconnectFrame && this.disconnectFrame.isConnected),
      closeReason: this.closeReason,
    };
  };

  var renderScheduled = false;

  function render() {
    if (renderScheduled) return;
    renderScheduled = true;
    setTimeout(function () {
      renderScheduled = false;
      var rows = Object.keys(connections).map(function (name) {
        var s = connections[name].snapshot();
        return "<tr><td>" + [s.name, s.state, s.sessionId || "", s.messageCount, s.polls, s.outstanding,
          s.pendingSegments, s.disconnectFrameLoaded ? "loaded" : "", s.closeReason || ""].map(escape).join("</td><td>") +
          "</td></tr>";
      });
      document.getElementById("connections").innerHTML = rows.join("");
      document.getElementById("errors").textContent = errors.join("\n");
    }, 50);
  }

  function escape(value) {
    return String(value).replace(/[&<>]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;" }[c];
    });
  }

  function connection(name) {
    if (!connections[name]) throw new Error("no connection named " + name);
    return connections[name];
  }

  window.lp = {
    open: function (name, hearthURL, namespace) {
      if (connections[name]) throw new Error("a connection named " + name + " exists");
      connections[name] = new Connection(name, hearthURL, namespace);
      render();
      return connections[name].callback;
    },
    send: function (name, message) {
      return connection(name).send(message);
    },
    messages: function (name, from) {
      return connection(name).messages.slice(from || 0);
    },
    state: function (name) {
      return connection(name).snapshot();
    },
    close: function (name) {
      connection(name).shutdown("closed by the page");
    },
    errors: function () {
      return errors.slice();
    },
  };
})();

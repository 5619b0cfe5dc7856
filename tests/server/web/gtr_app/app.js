// The requests of the reference app's src/services/gameService.ts and src/pages/Play.tsx, without React.
"use strict";
const API_BASE_URL = new URLSearchParams(location.search).get("api") || "http://0.0.0.0:8000/guess-the-rule";
const $ = (id) => document.getElementById(id);
let details = { gameId: "", status: "ongoing", turnsTaken: 0 };

async function handleApiError(response) {
  if (!response.ok) {
    const errorData = await response.json();
    throw new Error(errorData.detail || "An unexpected error occurred");
  }
  return response.json();
}

async function startGameService(payload) {
  const response = await fetch(`${API_BASE_URL}/game`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
  });
  return handleApiError(response);
}

async function getExamplesService(gameId, numExamples) {
  const response = await fetch(`${API_BASE_URL}/game/${gameId}/examples?n_examples=${numExamples}`, {
    method: "GET", headers: { "Content-Type": "application/json" },
  });
  return handleApiError(response);
}

async function validateGuessService(gameId, guess) {
  const response = await fetch(`${API_BASE_URL}/game/validate_guess`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ game_id: gameId, guess }),
  });
  return handleApiError(response);
}

async function loadGameService(gameId) {
  const response = await fetch(`${API_BASE_URL}/game/${gameId}`, {
    method: "GET", headers: { "Content-Type": "application/json" },
  });
  return handleApiError(response);
}

async function streamLLMGameplay(game, difficulty, player, numInitExamples, onMessage, onStatus) {
  const url = new URL(`${API_BASE_URL}/llm-gameplay`);
  url.searchParams.append("game_name", game);
  url.searchParams.append("difficulty", difficulty);
  url.searchParams.append("player", player);
  url.searchParams.append("num_init_examples", numInitExamples.toString());
  const response = await fetch(url);
  if (!response.ok) throw new Error("Failed to start LLM gameplay");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const messages = buffer.split("\n").filter((line) => line.trim() !== "");
    while (messages.length > 0) {
      const message = messages.shift();
      try {
        const parsed = JSON.parse(message);
        onMessage(parsed.content, parsed.sender.toLowerCase());
        const content = parsed.content.toLowerCase();
        if (content.includes("game over!")) onStatus("lost");
        else if (content.includes("guessed the rule correctly!")) onStatus("won");
      } catch (err) {
        console.error("Error parsing message:", err);
      }
    }
    buffer = messages.join("\n");
  }
}

function toast(message) {
  const t = $("toast");
  t.textContent = message;
  t.hidden = false;
}

function addMessage(content, sender) {
  const div = document.createElement("div");
  div.className = `message ${sender}`;
  div.textContent = content;
  $("messages").appendChild(div);
}

function showDetails(d) {
  details = { ...details, ...d };
  $("d-id").textContent = details.gameId;
  $("d-domain").textContent = details.domain ?? "";
  $("d-difficulty").textContent = details.difficulty ?? "";
  $("d-type").textContent = details.datasetType ?? "";
  $("d-status").textContent = details.status.charAt(0).toUpperCase() + details.status.slice(1);
  $("d-turns").textContent = String(details.turnsTaken);
}

function show(section) {
  for (const id of ["modes", "setup", "loader", "play"]) $(id).hidden = id !== section;
}

$("new-game").onclick = () => show("setup");
$("load-game").onclick = () => show("loader");
$("reset").onclick = () => { $("messages").textContent = ""; show("modes"); };

$("start").onclick = async () => {
  const game = $("game").value, difficulty = $("difficulty").value, player = $("player").value;
  const initialExamples = parseInt($("examples").value);
  if (!game || !difficulty || !player) return;
  try {
    if (player !== "user") {
      show("play");
      showDetails({ domain: game, difficulty, datasetType: "Dynamic", status: "ongoing", turnsTaken: 0, gameId: `llm-${Date.now()}` });
      await streamLLMGameplay(game, difficulty, player, initialExamples,
        (content, sender) => { addMessage(content, sender); if (sender === "user") showDetails({ turnsTaken: details.turnsTaken + 1 }); },
        (status) => showDetails({ status }));
      return;
    }
    const response = await startGameService({ game_name: game, difficulty, player, num_init_examples: initialExamples.toString() });
    show("play");
    showDetails({ domain: response.domain, difficulty, datasetType: response.game_gen_type, status: response.status,
                  turnsTaken: response.turns_taken, gameId: response.game_uuid });
    $("messages").textContent = "";
    addMessage(response.system_message, "system");
  } catch (error) {
    toast(error.message);
  }
};

$("load").onclick = async () => {
  try {
    const response = await loadGameService($("game-id").value);
    show("play");
    showDetails({ domain: response.domain, difficulty: response.difficulty,
                  datasetType: response.game_gen_type === "dynamic" ? "Dynamic" : "Static",
                  status: response.status, turnsTaken: response.turns_taken, gameId: response.game_uuid });
    $("messages").textContent = "";
    addMessage(response.system_message, "system");
  } catch (error) {
    toast(error.message);
  }
};

$("chat").onsubmit = async (e) => {
  e.preventDefault();
  const message = $("mode").value === "examples" ? `More ${$("count").value} examples` : $("guess").value;
  $("guess").value = "";
  if (!message.trim()) return;
  if (details.status !== "ongoing") { toast("This game has ended. Please start a new game to continue playing."); return; }
  try {
    addMessage(message, "user");
    const examplesMatch = message.match(/^More (\d+) examples?$/);
    const response = examplesMatch
      ? await getExamplesService(details.gameId, parseInt(examplesMatch[1]))
      : await validateGuessService(details.gameId, message);
    addMessage(response.system_message, "system");
    if (response.status) showDetails({ status: response.status, turnsTaken: details.turnsTaken + 1 });
  } catch (error) {
    toast(error.message);
  }
};

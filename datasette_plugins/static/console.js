// Scope Recall console, on every page: times in the operator's own zone, select-all, and keyboard triage on the
// review queue (j/k move, x ticks, p promotes, r opens the rejection). Everything works without it, only slower.

for (const element of document.querySelectorAll("time[datetime]")) {
  const moment = new Date(element.getAttribute("datetime"));
  if (!isNaN(moment)) {
    element.textContent = moment.toLocaleString(undefined, {
      year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
    });
  }
}

for (const all of document.querySelectorAll("input[data-select-all]")) {
  all.addEventListener("change", () => {
    for (const box of document.querySelectorAll(`input[name=ids][form="${all.dataset.selectAll}"]`)) {
      box.checked = all.checked;
    }
  });
}

const cards = [...document.querySelectorAll(".scope-recall-item")];
let current = -1;

function focusCard(index) {
  if (!cards.length) return;
  cards[current]?.classList.remove("focused");
  current = Math.max(0, Math.min(cards.length - 1, index));
  cards[current].classList.add("focused");
  cards[current].scrollIntoView({ block: "nearest" });
}

const keys = {
  j: () => focusCard(current + 1),
  k: () => focusCard(current - 1),
  x: (card) => { const box = card.querySelector("input[name=ids]"); if (box) box.checked = !box.checked; },
  p: (card) => card.querySelector("form[data-action=promote]")?.requestSubmit(),
  r: (card) => { const link = card.querySelector("a[data-action=reject]"); if (link) location.href = link.href; },
};

document.addEventListener("keydown", (event) => {
  const action = keys[event.key];
  if (!action || !cards.length || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("textarea, select, [contenteditable], input:not([type=checkbox]):not([type=submit])")) return;
  const card = cards[current];
  if (!card && event.key !== "j" && event.key !== "k") return;
  event.preventDefault();
  action(card);
});

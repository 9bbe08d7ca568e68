// The page's foul warning for stagings of one street, given the server's answer to the
// `fouls` message: run by tests/test_server_fouls.py (which checks it against the
// scorer's certain_foul), reading {board, dealt, free, fouls, stagings} on stdin and
// writing per staging whether the page asked, its warning, whether it shows royalties so
// far and what Confirm would do.
import { readFileSync } from "node:fs";
import * as state from "../../src/chinese_poker/server/static/js/tablestate.js";
import * as S from "../../src/chinese_poker/server/static/js/staging.js";
import { myAreaHTML } from "../../src/chinese_poker/server/static/js/board.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

const read = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
useCatalogues({ en: read("../../src/chinese_poker/server/static/i18n/en.json") }, "en");
const { specs } = read("./eval-fixtures.json");
const input = JSON.parse(readFileSync(0, "utf8"));
const out = [];
for (const moves of input.stagings) {
  const T = state.newTableState("t", "seat", { token: "k" }, "dealt");
  state.welcomed(T, { table: { name: "T", seats: [], hints: false }, spec: specs.pineapple, role: "seat", seat: 0, player: "Ann" });
  state.handStarted(T, { hand: 1 });
  const decision = { seat: 0, hand: 0, kind: "street", street: 2, cards: input.dealt, place: 2, discard: 1, free: input.free };
  const view = { version: 5, seat: 0, to_act: [0], decisions: [decision], phase: "play", players: ["Ann", "Bob"],
    boards: [{ seat: 0, hand: 0, player: "Ann", ...input.board }] };
  state.viewArrived(T, { hand: 1, version: 5, view, clocks: [], log: [] }, 0, null);
  const asks = state.foulsWanted(T);
  state.foulsArrived(T, { type: "fouls", version: 5, fouls: input.fouls });
  for (const [card, line] of moves) S.stage(T, line, card);
  const page = String(myAreaHTML(T, { touch: false }));
  const warning = /id="foul-warning">([^<]*)</.exec(page);
  const royalties = /id="royalty-total"/.test(page);
  out.push({ asks, warning: warning ? warning[1] : null, royalties, step: S.ready(T) ? state.confirmStep(T).kind : null });
}
process.stdout.write(JSON.stringify(out));

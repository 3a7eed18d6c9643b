// Random playouts of Dameo under AbstractPlay's rules engine (gameslib's
// src/games/dameo.ts): prints one line per position, `setup|moves`, the
// setup in damone's Dameo notation and the moves as gameslib writes them
// (cells joined by '-': a step, a line move, or every landing of a capture).
//
// Run by scripts/dameo-crosscheck.sh; arguments: GAMESLIB_DIR POSITIONS SEED,
// or GAMESLIB_DIR perft DEPTH to count the leaves of the start position's
// move tree under that engine.
import * as path from "path";

const [gameslibDir, positionsArg, seedArg] = process.argv.slice(2);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DameoGame } = require(path.resolve(gameslibDir, "src/games/dameo.ts"));

if (positionsArg === "perft") {
    const depth = Number(seedArg ?? "3");
    const leaves = (game: any, d: number): number => {
        const moves: string[] = game.moves();
        if (d === 1) {
            return moves.length;
        }
        let n = 0;
        for (const m of moves) {
            const next = DameoGame.clone(game);
            next.move(m, { trusted: true });
            n += next.gameover ? 0 : leaves(next, d - 1);
        }
        return n;
    };
    for (let d = 1; d <= depth; d++) {
        process.stdout.write(`perft ${d} ${leaves(new DameoGame(), d)}\n`);
    }
    process.exit(0);
}

const wanted = Number(positionsArg ?? "10000");
let state = Number(seedArg ?? "1") >>> 0;
// mulberry32: a small seeded generator, so that a seed gives the same file.
function random(): number {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const FILES = "abcdefgh";
function cellOrder(cell: string): number {
    return (Number(cell.slice(1)) - 1) * 8 + FILES.indexOf(cell[0]);
}

// damone's setup string: side to move, then each side's men and kings.
function setup(game: any): string {
    const lists: Record<number, [string[], string[]]> = { 1: [[], []], 2: [[], []] };
    for (const [cell, [owner, size]] of game.board.entries()) {
        lists[owner][size - 1].push(cell);
    }
    const side = (owner: number, letter: string) => {
        const [men, kings] = lists[owner].map((l) => l.sort((a, b) => cellOrder(a) - cellOrder(b)));
        return letter + [...men, ...kings.map((k) => "K" + k)].join(",");
    };
    return `${game.currplayer === 1 ? "W" : "B"}:${side(1, "W")}:${side(2, "B")}`;
}

let written = 0;
const out: string[] = [];
while (written < wanted) {
    const game = new DameoGame();
    for (let ply = 0; ply < 300 && written < wanted; ply++) {
        const moves: string[] = game.moves();
        out.push(`${setup(game)}|${moves.join(" ")}`);
        written++;
        if (moves.length === 0 || game.gameover) {
            break;
        }
        game.move(moves[Math.floor(random() * moves.length)], { trusted: true });
        if (game.gameover) {
            break;
        }
    }
}
process.stdout.write(out.join("\n") + "\n");

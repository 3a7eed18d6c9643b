#!/usr/bin/env python3
"""Train a small PyTorch policy on damone's vectorised environment, then
play it against damone's alpha-beta at depth 2.

A notebook-style walk through the Python package:

1. `damone.VecEnv` plays 128 games at once; observations are the
   network's input planes (9 x 8 x 8, seen by the side to move), actions
   are policy indices, masked by `action_mask`.
2. The policy is trained by advantage actor-critic from self-play: both
   sides are the same network, so a move's return is the game's result for
   its mover (plus a small reward for material won, `--shaping`), and the
   value of the next position (the opponent's) counts with its sign turned.
3. The trained network plays games against `damone.Player("alphabeta:depth=2")`
   twice: on its own (the most likely legal move) and guiding damone's MCTS
   (`damone.search` with the network as a Python evaluator). The untrained
   network plays the same games first, for comparison.

Needs the damone wheel and PyTorch:
    pip install damone-*.whl torch
    python examples/python/train_policy.py --minutes 3
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import damone

# --- 1. The network: a small residual tower, a value head, and a policy head
# that scores a move by its start and end squares. An action is
# slot * 1024 + start * 32 + end over the 32 playing squares (seen from the
# side to move); plane 8 of every observation marks those squares' cells, in
# the order of their indices.

PLAYING_CELLS = torch.from_numpy(np.flatnonzero(damone.Game().observation()[8].ravel()))


class PolicyNet(nn.Module):
    def __init__(self, planes: int = 9, channels: int = 32, blocks: int = 2, features: int = 16) -> None:
        super().__init__()
        self.stem = nn.Conv2d(planes, channels, 3, padding=1)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(), nn.Conv2d(channels, channels, 3, padding=1))
            for _ in range(blocks)
        )
        self.start = nn.Conv2d(channels, features, 1)
        self.end = nn.Conv2d(channels, features, 1)
        self.value = nn.Sequential(nn.Flatten(), nn.Linear(channels * 64, 64), nn.ReLU(), nn.Linear(64, 1), nn.Tanh())

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = F.relu(self.stem(x))
        for block in self.blocks:
            h = F.relu(h + block(h))
        start = self.start(h).flatten(2)[:, :, PLAYING_CELLS]  # (B, features, 32)
        end = self.end(h).flatten(2)[:, :, PLAYING_CELLS]
        squares = torch.einsum("bks,bke->bse", start, end).flatten(1)  # (B, 1024)
        # The four slots (captures sharing start and end squares) share a score.
        return squares.repeat(1, damone.POLICY_SIZE // 1024), self.value(h).squeeze(1)


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask, -1e9)


# A piece's worth by kind (planes 0-2 are the side to move's pieces by kind,
# 3-5 the opponent's): Damone's Pedina, Dama, Damone; Italian man, king.
KIND_VALUES = torch.tensor([1.0, 2.0, 3.0])


def material(observations: torch.Tensor) -> torch.Tensor:
    """The side to move's material minus the opponent's."""
    counts = observations[:, :6].sum((2, 3))
    return counts[:, :3] @ KIND_VALUES - counts[:, 3:6] @ KIND_VALUES


# --- 2. Self-play training with advantage actor-critic.


def train(net: PolicyNet, minutes: float, envs: int, horizon: int, seed: int, shaping: float) -> None:
    env = damone.VecEnv(envs, seed=seed, opening_plies=2)
    obs, info = env.reset()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    start, updates, finished, plies, shown = time.time(), 0, 0, 0, 0.0
    while time.time() - start < minutes * 60:
        batch_obs, batch_mask, batch_act, batch_rew, batch_done = [], [], [], [], []
        for _ in range(horizon):
            o = torch.from_numpy(obs.copy())
            m = torch.from_numpy(info["action_mask"].copy())
            with torch.no_grad():
                logits, _ = net(o)
            actions = torch.distributions.Categorical(logits=masked(logits, m)).sample()
            mover = info["to_play"].copy()
            obs, rewards, terminated, truncated, info = env.step(actions.numpy())
            done = torch.from_numpy(terminated | truncated)
            # The result for the mover, and a small reward for the material
            # the move won (the next observation is the opponent's view).
            gained = -material(torch.from_numpy(obs)) - material(o)
            reward = torch.from_numpy(rewards[np.arange(envs), mover].copy())
            batch_obs.append(o)
            batch_mask.append(m)
            batch_act.append(actions)
            batch_rew.append(reward + shaping * torch.where(done, torch.zeros(envs), gained))
            batch_done.append(done)
            finished += int(terminated.sum())
            plies += envs
        with torch.no_grad():
            _, last_value = net(torch.from_numpy(obs.copy()))
        # A move's return: its reward, minus the opponent's return from the
        # next position (zero-sum, alternating movers); at a game's end, the reward.
        returns = torch.zeros(horizon, envs)
        following = last_value
        for t in reversed(range(horizon)):
            following = batch_rew[t] - torch.where(batch_done[t], torch.zeros(envs), following)
            returns[t] = following
        o = torch.cat(batch_obs)
        logits, values = net(o)
        logp = F.log_softmax(masked(logits, torch.cat(batch_mask)), dim=1)
        chosen = logp.gather(1, torch.cat(batch_act)[:, None]).squeeze(1)
        advantage = returns.flatten() - values.detach()
        entropy = -(logp.exp() * logp.clamp(min=-30)).sum(1).mean()
        loss = -(chosen * advantage).mean() + 0.5 * F.mse_loss(values, returns.flatten()) - 0.01 * entropy
        opt.zero_grad()
        loss.backward()
        opt.step()
        updates += 1
        if time.time() - shown > 20:
            shown = time.time()
            print(f"  {time.time() - start:5.0f} s  update {updates:4d}  games {finished:6d}  "
                  f"plies {plies:8d}  loss {loss.item():.3f}  entropy {entropy.item():.2f}", flush=True)


# --- 3. Playing against alpha-beta depth 2.


def network_move(net: PolicyNet, game: damone.Game) -> str:
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(game.observation()[None]))
    mask = torch.from_numpy(game.action_mask()[None])
    return game.action_to_move(int(masked(logits, mask).argmax()))


def evaluator(net: PolicyNet):
    """damone.search's evaluator: the network's logits and values, batched."""

    def evaluate(observations: np.ndarray, mask: np.ndarray):
        with torch.no_grad():
            logits, values = net(torch.from_numpy(observations))
        return logits.numpy(), values.numpy()

    return evaluate


def play(net: PolicyNet, games: int, sims: int, seed: int) -> str:
    """Games against alpha-beta depth 2, colours alternating, each opened by
    two seeded random plies; the score with its 95% interval."""
    rng = np.random.default_rng(seed)
    wins = draws = losses = 0
    for k in range(games):
        game = damone.Game()
        for _ in range(2):
            game.play(rng.choice(game.legal_moves()))
        ours = k % 2
        opponent = damone.Player("alphabeta:depth=2", seed=seed + k)
        while not game.is_over():
            if game.current_player == ours:
                move = network_move(net, game) if sims == 0 else \
                    damone.search(game, evaluator(net), simulations=sims, seed=k).best
            else:
                move = opponent.choose(game)
            game.play(move)
        ret = game.returns()[ours]
        wins, draws, losses = wins + (ret > 0), draws + (ret == 0), losses + (ret < 0)
    score = (wins + draws / 2) / games
    var = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score ** 2) / games
    return f"{100 * score:5.1f}% ± {196 * math.sqrt(var / games):4.1f} (+{wins} ={draws} -{losses}, {games} games)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    ap.add_argument("--envs", type=int, default=128, help="games played at once (default 128)")
    ap.add_argument("--horizon", type=int, default=16, help="plies per game per update (default 16)")
    ap.add_argument("--games", type=int, default=40, help="games against alpha-beta depth 2 per line (default 40)")
    ap.add_argument("--sims", type=int, default=64, help="simulations of the search line (default 64)")
    ap.add_argument("--shaping", type=float, default=0.05, help="reward per unit of material won (default 0.05; 0: results only)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    net = PolicyNet()
    print("untrained network against alpha-beta depth 2:")
    print(f"  policy alone       {play(net, a.games, 0, a.seed)}")
    print(f"  with {a.sims:3d}-sim MCTS  {play(net, a.games, a.sims, a.seed)}")
    print(f"training for {a.minutes:g} minutes on {torch.get_num_threads()} threads:")
    train(net, a.minutes, a.envs, a.horizon, a.seed, a.shaping)
    print("trained network against alpha-beta depth 2:")
    print(f"  policy alone       {play(net, a.games, 0, a.seed)}")
    print(f"  with {a.sims:3d}-sim MCTS  {play(net, a.games, a.sims, a.seed)}")


if __name__ == "__main__":
    main()

"""A compat training loop (``import ftrans.compat as torch``), type-checked by mypy
(tests/test_typing.py) and run."""
from __future__ import annotations

import ftrans.compat as torch
from ftrans.compat import nn
from ftrans.compat.utils.data import DataLoader, TensorDataset


class MLP(nn.Module):
    def __init__(self, n_in: int, n_hidden: int, n_out: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def train(epochs: int = 3) -> float:
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = (x.sum(dim=1) > 0).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = MLP(4, 16, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    last = 0.0
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            last = loss.item()
    with torch.no_grad():
        acc = (model(x).argmax(dim=1) == y).float().mean().item()
    return last + 0 * acc


if __name__ == "__main__":
    print(train())

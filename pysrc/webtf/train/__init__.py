"""tf.train: the optimizers of tfjs-core (optimizers/*.ts), one module each, on a shared base (optimizer.py).

`tf.train.adam(0.01).minimize(lambda: loss(), return_cost=True)`; each optimizer's update is one kernel per
variable (ApplyAdam, ...; update_rules.py) and its slots are Variables freed by dispose().
"""

from .adadelta_optimizer import AdadeltaOptimizer, adadelta
from .adagrad_optimizer import AdagradOptimizer, adagrad
from .adam_optimizer import AdamOptimizer, adam
from .adamax_optimizer import AdamaxOptimizer, adamax
from .momentum_optimizer import MomentumOptimizer, momentum
from .optimizer import NamedTensor, Optimizer
from .rmsprop_optimizer import RMSPropOptimizer, rmsprop
from .sgd_optimizer import SGDOptimizer, sgd

__all__ = [
    "AdadeltaOptimizer", "AdagradOptimizer", "AdamOptimizer", "AdamaxOptimizer", "MomentumOptimizer", "NamedTensor",
    "Optimizer", "RMSPropOptimizer", "SGDOptimizer", "adadelta", "adagrad", "adam", "adamax", "momentum",
    "rmsprop", "sgd",
]  # fmt: skip

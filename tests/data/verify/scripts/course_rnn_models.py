"""The language model of a course project, in a module the training file imports whole."""
import torch.nn as nn


class WordModel(nn.Module):
    def __init__(self, vocab_size, hidden_size, num_layers, dropout_prob):
        super().__init__()
        self.hidden_size, self.num_layers = hidden_size, num_layers
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        self.dropout = nn.Dropout(dropout_prob)
        self.rnn = nn.GRU(hidden_size, hidden_size, num_layers, dropout=dropout_prob, batch_first=True)
        self.decoder = nn.Linear(hidden_size, vocab_size)

    def init_hidden(self, batch_size):
        weight = next(self.parameters())
        return weight.new_zeros(self.num_layers, batch_size, self.hidden_size)

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.dropout(self.embedding(tokens)), hidden)
        return self.decoder(output), hidden

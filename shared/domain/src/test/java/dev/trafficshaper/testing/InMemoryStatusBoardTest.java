package dev.trafficshaper.testing;

import dev.trafficshaper.lifecycle.InMemoryModelStatusBoard;
import dev.trafficshaper.lifecycle.ModelStatusBoard;

class InMemoryStatusBoardTest extends StatusBoardContract {

    @Override
    protected ModelStatusBoard newBoard() {
        return new InMemoryModelStatusBoard();
    }
}

"""A DataTable whose columns take the width the layout gives it: each
column keeps its least width and what is left is shared out (rows.column_widths).
The screen that owns it adds the rows again at the new widths (``refill``):
DataTable measures a row's cells once, when it is added."""
from textual.widgets import DataTable

from .rows import column_widths


class FittedTable(DataTable):
    COLUMNS = ()  # (label, least width, share of what is left)
    wanted = None  # {column index: width} served before the shares (rows.column_widths)

    def on_mount(self) -> None:
        for (label, _, _), width in zip(self.COLUMNS, self.fitted_widths()):
            self.add_column(label, width=width)

    def fitted_widths(self):
        # The vertical scrollbar's room is kept whether or not it shows, so a
        # table that grows past one screen does not shift every column.
        return column_widths(self.size.width - self.styles.scrollbar_size_vertical, self.COLUMNS, self.wanted)

    def on_resize(self) -> None:
        widths = self.fitted_widths()
        columns = self.ordered_columns
        if [c.width for c in columns] == list(widths):
            return
        for column, width in zip(columns, widths):
            column.width = width
        self.screen.refill()

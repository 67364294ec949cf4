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

    def fitted_widths(self, width=None):
        """The columns' widths in a table ``width`` cells wide (by default its width now)."""
        width = self.size.width if width is None else width
        # The vertical scrollbar's room is kept whether or not it shows, so a
        # table that grows past one screen does not shift every column.
        return column_widths(width - self.styles.scrollbar_size_vertical, self.COLUMNS, self.wanted)

    def fit_columns(self, width=None) -> bool:
        """Give the columns their widths in a table ``width`` cells wide; True when that changed them.
        The screen passes the width it has just given the table, so that the rows it adds next are
        measured once, before the layout has resized the table."""
        least = self.styles.min_width
        if width is not None and least is not None:
            # What the layout will make of it: the stylesheet's min-width still holds.
            width = max(width, int(least.resolve(self.parent.size, self.app.size)))
        widths = self.fitted_widths(width)
        columns = self.ordered_columns
        if [c.width for c in columns] == list(widths):
            return False
        for column, width in zip(columns, widths):
            column.width = width
        return True

    def on_resize(self) -> None:
        if self.fit_columns():
            self.screen.refill()

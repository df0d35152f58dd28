(function () {
  var all = function () { return document.querySelectorAll('details.ev'); };
  var button = document.getElementById('toggle-all');
  var opened = [];
  if (button) button.addEventListener('click', function () {
    var open = button.dataset.open !== '1';
    all().forEach(function (d) { d.open = open; });
    button.dataset.open = open ? '1' : '0';
    button.textContent = open ? 'collapse all evidence' : 'expand all evidence';
  });
  window.addEventListener('beforeprint', function () {
    opened = [];
    all().forEach(function (d) { if (!d.open) { d.open = true; opened.push(d); } });
  });
  window.addEventListener('afterprint', function () {
    opened.forEach(function (d) { d.open = false; });
  });
})();
